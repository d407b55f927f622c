#!/usr/bin/env bash
# fig-21-low-data.sh BIN: figure 21 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=21 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=21 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 21: a low-data get
# A progressive photo of ~9.6 MB (GNOME's pixels-l wallpaper at Q95, `jpegtran -progressive`) is
# trickled at ~2 MB/s by the test server (4000 bytes every 2 ms). A cold `get -s 320x320 --low-data`
# stops once the first scans serve the thumbnail; it is timed and its downloaded bytes counted
# against the same cold `get` without --low-data (read whole; no scan watcher is installed then).
if want 21; then
  log "figure 21: a low-data get of a progressive ~9.6 MB photo at 2 MB/s vs a normal one"
  D21="$RUN/f21"; mkdir -p "$D21/img"; mkfifo "$D21/stdin"
  if vips copy /usr/share/backgrounds/gnome/pixels-l.webp "$D21/base.jpg[Q=95]" 2>/dev/null &&
     jpegtran -progressive -copy none "$D21/base.jpg" > "$D21/img/photo.jpg" 2>/dev/null; then
    python3 "$(dirname "$HERE")/../Tests/Support/e2e_server.py" "$D21/img" < "$D21/stdin" > "$D21/port" & S21=$!
    exec 9> "$D21/stdin"   # the server ends when this closes
    for _ in $(seq 50); do [[ -s "$D21/port" ]] && break; sleep 0.1; done
    U21="http://127.0.0.1:$(head -1 "$D21/port")/img/photo.jpg?trickle=2"
    low_get() {   # low_get CACHE ARGS... -> "SECONDS DOWNLOADED_BYTES"
      local cache=$1; shift
      python3 - "$BIN" "$cache" "$@" <<'PY'
import json, subprocess, sys, time
t = time.monotonic()
r = subprocess.run([sys.argv[1], "get", "--cache-dir", sys.argv[2], "-s", "320x320", "--json", "-o", "/dev/null"] + sys.argv[3:],
                   capture_output=True, text=True)
elapsed = time.monotonic() - t
record = json.loads(r.stdout.splitlines()[0]) if r.stdout else {}
print("%.3f %s" % (elapsed, record.get("downloaded_bytes", "NA") if r.returncode == 0 else "NA"))
PY
    }
    read -r normal_s normal_b < <(low_get "$D21/normal" "$U21&v=normal")
    read -r low_s low_b < <(low_get "$D21/low" "$U21&v=low" --low-data)
    [[ "$low_b" != NA && "$normal_b" != NA ]] || warn "[f21] a get failed (low-data $low_b bytes, normal $normal_b bytes)"
    exec 9>&-; wait "$S21" 2>/dev/null || true
    fig 21 "low-data get -s 320x320 of a progressive 9.6 MB photo at 2 MB/s (bytes: $low_b vs $normal_b)" "--low-data" "$low_s" \
      "normal get" "$normal_s" s 0.5 "<= 0.5"
  else
    warn "[f21] skipped: vips, jpegtran (libjpeg-turbo-progs) and gnome-backgrounds are needed"
  fi
fi
