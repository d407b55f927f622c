# Sourced by scale-demo.sh and tsan.sh (bash): starts the test server (Tests/Support/e2e_server.py,
# the bundled images, counting requests) and an nginx WebDAV tier (dav-nginx.sh) on 127.0.0.1 in
# $WORK, sets ORIGIN and REMOTE, and stops both (and removes $WORK) when the script exits.
# Needs ROOT (the repository) and WORK (a fresh directory, mode 755 so that nginx's workers reach it).
exec 3> >(python3 "$ROOT/Tests/Support/e2e_server.py" "$ROOT/Tests/Fixtures" > "$WORK/origin-port")
for _ in $(seq 50); do [[ -s "$WORK/origin-port" ]] && break; sleep 0.1; done
ORIGIN="http://127.0.0.1:$(head -1 "$WORK/origin-port")"
REMOTE=$("$ROOT/scripts/dav-nginx.sh" "$WORK/tier")
cleanup() { exec 3>&-; [[ -s "$WORK/tier/nginx.pid" ]] && kill "$(cat "$WORK/tier/nginx.pid")" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
