#!/usr/bin/env bash
# fig-20-resume.sh BIN: figure 20 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=20 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=20 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 20: a resumed download
# The test server (Tests/Support/e2e_server.py) trickles an 8 MB JPEG (photo.jpg padded with comment
# segments) at 2 MB/s (4000 bytes every 2 ms) and honours Range/If-Range. A first get is cut by
# --timeout 2 (about half the body kept in v1/partial/); the second get asks for the rest. It is
# timed and its downloaded bytes counted against an uninterrupted get of the same body.
if want 20; then
  log "figure 20: a resumed 8 MB download at 2 MB/s vs an uninterrupted one"
  D20="$RUN/f20"; mkdir -p "$D20"; mkfifo "$D20/stdin"
  python3 "$(dirname "$HERE")/../Tests/Support/e2e_server.py" "$(dirname "$HERE")/../Tests/Fixtures" < "$D20/stdin" > "$D20/port" & S20=$!
  exec 8> "$D20/stdin"   # the server ends when this closes
  for _ in $(seq 50); do [[ -s "$D20/port" ]] && break; sleep 0.1; done
  U20="http://127.0.0.1:$(head -1 "$D20/port")/img/photo.jpg?pad=8000000&trickle=2"
  timed_get() {   # timed_get CACHE ARGS... -> "SECONDS DOWNLOADED_BYTES"
    local cache=$1; shift
    python3 - "$BIN" "$cache" "$@" <<'PY'
import json, subprocess, sys, time
t = time.monotonic()
r = subprocess.run([sys.argv[1], "get", "--cache-dir", sys.argv[2], "--json", "-o", "/dev/null"] + sys.argv[3:],
                   capture_output=True, text=True)
elapsed = time.monotonic() - t
record = json.loads(r.stdout.splitlines()[0]) if r.stdout else {}
print("%.3f %s" % (elapsed, record.get("downloaded_bytes", "NA") if r.returncode == 0 else "NA"))
PY
  }
  read -r plain_s plain_b < <(timed_get "$D20/plain" "$U20&v=plain")
  timed_get "$D20/resumed" "$U20" --timeout 2 > /dev/null || true
  parts=$(find "$D20/resumed/v1/partial" -name '*.part' 2>/dev/null | wc -l)
  [[ "$parts" == 1 ]] || warn "[f20] the first get kept $parts partial downloads, expected 1"
  read -r resumed_s resumed_b < <(timed_get "$D20/resumed" "$U20")
  [[ "$resumed_b" != NA && "$plain_b" != NA ]] || warn "[f20] a get failed (plain $plain_b bytes, resumed $resumed_b bytes)"
  exec 8>&-; wait "$S20" 2>/dev/null || true
  fig 20 "resumed get of 8 MB at 2 MB/s after --timeout 2 (bytes: $resumed_b vs $plain_b)" "resumed get" "$resumed_s" \
    "uninterrupted get" "$plain_s" s 0.6 "<= 0.6"
fi
