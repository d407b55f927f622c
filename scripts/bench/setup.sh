# scripts/bench/setup.sh: sourced by scripts/bench.sh (not run alone): checks the tools, snapshots the
# binary, builds the corpus, starts the server (stopped by the driver's EXIT trap), writes env.txt.

# ------------------------------------------------------------------ tools
MISSING=()
for t in vips vipsthumbnail vipsheader hyperfine curl python3; do
  command -v "$t" >/dev/null || MISSING+=("$t")
done
[[ -x /usr/bin/time ]] || MISSING+=("/usr/bin/time")
if [[ ${#MISSING[@]} -gt 0 ]]; then
  echo "bench: missing ${MISSING[*]}; install with: BENCH_DEPS=1 scripts/install-deps.sh" >&2
  exit 1
fi
HAVE_NGINX=1; command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || HAVE_NGINX=0
[[ "${BENCH_SERVER:-}" == python ]] && HAVE_NGINX=0   # force the fallback server (for testing it)
HAVE_ARIA=1; command -v aria2c >/dev/null || HAVE_ARIA=0

mkdir -p "$RES"
rm -rf "$RUN"; mkdir -p "$RUN"
# Benchmark a snapshot: a rebuild of BIN during the run (other builds on this machine) must not
# swap binaries between figures or make a run fail with "text file busy".
cp "$BIN" "$RUN/imgfetch"; BIN="$RUN/imgfetch"
BASELINE=""
if [[ -n "${BASELINE_BIN:-}" ]]; then
  [[ -x "$BASELINE_BIN" ]] || { echo "bench: BASELINE_BIN=$BASELINE_BIN is not an executable" >&2; exit 1; }
  mkdir -p "$RUN/baseline"; cp "$BASELINE_BIN" "$RUN/baseline/imgfetch"; BASELINE="$RUN/baseline/imgfetch"
fi
: > "$RES/warnings.txt"; : > "$RES/figures.tsv"; : > "$RES/rss.tsv"

# ------------------------------------------------------------------ corpus + server
log "corpus"
"$HERE/make-corpus.sh" "$CORPUS" >&2
cat "$CORPUS"/jpg/*.jpg "$CORPUS"/large/*.jpg > /dev/null   # page cache: measure CPU/protocol, not disk

port_free() { python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1])))' "$1" 2>/dev/null; }
PORT=${BENCH_PORT:-18090}
if ! port_free "$PORT"; then
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi
BASE="http://127.0.0.1:$PORT"
NGINX_STATE="$BENCH_DIR/nginx"
SERVER_PID=""; NGINX_STARTED=0
cleanup() {
  if [[ $NGINX_STARTED == 1 ]]; then "$HERE/nginx.sh" stop "$NGINX_STATE" "$CORPUS" "$PORT" >&2 || true; fi
  if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  if [[ -s "$RUN/tier/nginx.pid" ]]; then kill "$(cat "$RUN/tier/nginx.pid")" 2>/dev/null || true; fi   # figures 15, 16
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ $HAVE_NGINX == 1 ]]; then
  NGINX_STARTED=1
  "$HERE/nginx.sh" start "$NGINX_STATE" "$CORPUS" "$PORT" >&2
  SERVER="nginx $(nginx -v 2>&1 | sed 's/.*\///')"
else
  python3 "$HERE/serve.py" "$CORPUS" "$PORT" & SERVER_PID=$!
  SERVER="python3 http.server (nginx missing)"
  for _ in $(seq 1 50); do curl -s -o /dev/null --max-time 1 "$BASE/VERSION" && break; sleep 0.1; done
fi
curl -sf -o /dev/null "$BASE/jpg/img-000.jpg" || { echo "bench: the server does not answer on $BASE" >&2; exit 1; }

URLS="$RUN/urls.txt"; URLCFG="$RUN/urls.curlrc"; URLS50="$RUN/urls-50.txt"; URLS_SLOW="$RUN/urls-slow.txt"
( cd "$CORPUS/jpg" && for f in *.jpg; do echo "$BASE/jpg/$f"; done ) > "$URLS"
sed 's/^/url = /' "$URLS" > "$URLCFG"
head -50 "$URLS" > "$URLS50"
head -24 "$URLS" | sed "s|$BASE/jpg/|$BASE/slow/jpg/|" > "$URLS_SLOW"
URL1="$BASE/jpg/img-000.jpg"; URL6="$BASE/large/big-00.jpg"
SMALL="$CORPUS/small/thumb-20k.jpg"

{
  echo "$(date -Is), $(uname -srm), $(nproc) cpus, QUICK=$QUICK"
  echo "binary: $BIN_SHOWN ($($BIN --version 2>&1 | sed -n 1p), sha256 $(sha256sum "$BIN" | cut -c1-12))"
  [[ -z "$BASELINE" ]] || echo "baseline: $BASELINE_BIN ($($BASELINE --version 2>&1 | sed -n 1p), sha256 $(sha256sum "$BASELINE" | cut -c1-12))"
  echo "vips: $(vips --version); curl: $(curl --version | sed -n 1p | cut -d' ' -f1-2); hyperfine: $(hyperfine --version)"
  echo "aria2c: $([[ $HAVE_ARIA == 1 ]] && aria2c --version | sed -n 1p || echo missing); server: $SERVER on $BASE"
  echo "VIPS_CONCURRENCY=$VIPS_CONCURRENCY; loadavg at start: $(cat /proc/loadavg)"
} > "$RES/env.txt"
