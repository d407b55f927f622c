#!/usr/bin/env bash
# low-data.sh BIN -- the low-data figure: bytes and time of a low-data `get` (-s 320x320) of a
# progressive ~8 MB photo over a 2 MB/s trickle (e2e_server.py ?trickle=2: 4000 bytes every 2 ms),
# side by side with a normal one, each cold (its own cache directory). Prints one TSV line per
# mode: mode, bytes the server sent, bytes of the source, seconds (median of RUNS, default 3).
# Needs vips (libvips-tools), jpegtran (libjpeg-turbo-progs), gnome-backgrounds, python3.
set -euo pipefail
BIN=$(realpath "${1:?usage: scripts/bench/low-data.sh PATH/TO/imgfetch}")
RUNS=${RUNS:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/imgfetch-low-data.XXXXXX")
SERVER=""
cleanup() { if [[ -n "$SERVER" ]]; then kill "$SERVER" 2>/dev/null || true; fi; rm -rf "$DIR"; }
trap cleanup EXIT
mkdir -p "$DIR/img"
vips copy /usr/share/backgrounds/gnome/pixels-l.webp "$DIR/base.jpg[Q=95]"
jpegtran -progressive -copy none "$DIR/base.jpg" > "$DIR/img/photo.jpg"
SIZE=$(stat -c %s "$DIR/img/photo.jpg")
mkfifo "$DIR/stdin"
python3 "$HERE/../../Tests/Support/e2e_server.py" "$DIR/img" < "$DIR/stdin" > "$DIR/port" 2>/dev/null &
SERVER=$!
exec 3> "$DIR/stdin"   # the server runs until this closes
for _ in $(seq 50); do [[ -s "$DIR/port" ]] && break; sleep 0.1; done
PORT=$(head -1 "$DIR/port")
printf 'mode\tsent_bytes\tsource_bytes\tseconds\n'
for mode in low-data normal; do
  flag=(); [[ $mode == low-data ]] && flag=(--low-data)
  times=(); sent=0
  for run in $(seq "$RUNS"); do
    url="http://127.0.0.1:$PORT/img/photo.jpg?trickle=2&v=$mode-$run"
    start=$(date +%s.%N)
    "$BIN" get --cache-dir "$DIR/cache-$mode-$run" "$url" -s 320x320 "${flag[@]}" -o "$DIR/out-$mode.jpg"
    end=$(date +%s.%N)
    times+=("$(python3 -c "print($end - $start)")")
    sent=$(curl -s "http://127.0.0.1:$PORT/__stats" | python3 -c "import json,sys; print([e for e in json.load(sys.stdin)['log'] if e['path'].endswith('v=$mode-$run')][0].get('sent', 0))")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
  printf '%s\t%s\t%s\t%.2f\n' "$mode" "$sent" "$SIZE" "$median"
done
