#!/usr/bin/env bash
# The main job on an embedded default: serve the bundled sample images on 127.0.0.1, fetch them
# through imgfetch (a miss, then a hit), prefetch a list with a low-data fallback, list the cache.
set -euo pipefail
BIN=$(realpath "${1:-.build/release/imgfetch}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/imgfetch-demo.XXXXXX)
CACHE="$WORK/cache"
export IMGFETCH_CACHE_DIR="$CACHE"

# A local server for the sample images (exits when the pipe to its stdin closes).
exec 3> >(python3 "$ROOT/Tests/Support/e2e_server.py" "$ROOT/Tests/Fixtures" > "$WORK/port")
for _ in $(seq 50); do [[ -s "$WORK/port" ]] && break; sleep 0.1; done
BASE="http://127.0.0.1:$(head -1 "$WORK/port")"
trap 'exec 3>&-; rm -rf "$WORK"' EXIT
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@"; }

echo "imgfetch demo: sample images served at $BASE, cache in $CACHE"
run "$BIN" get "$BASE/img/photo.jpg" -s 320x320 -o "$WORK/photo-320.jpg" --json
run "$BIN" get "$BASE/img/photo.jpg" -s 320x320 -o "$WORK/photo-320.jpg" --json
say "(the second get was a cache hit: no request, a few milliseconds)"
run "$BIN" get "$BASE/img/photo.jpg" -s 100 -f webp -o "$WORK/photo-100.webp" --verbose
say "(a new variant derived from the cached original bytes, without the network)"

printf '%s\n' "# a prefetch list: one source per line, per-line options after it" \
  "$BASE/img/portrait.jpg" "$BASE/img/alpha.png" "$BASE/img/small.webp" \
  "$BASE/img/photo.jpg?v=big low-data=$BASE/img/tiny.jpg" \
  "$BASE/status/404 alt=$BASE/img/small.gif" > "$WORK/list.txt"
run cat "$WORK/list.txt"
run "$BIN" prefetch "$WORK/list.txt" -s 200x200 --low-data
run "$BIN" cache ls
run "$BIN" cache stats
echo
echo "done: outputs in $WORK were removed; run with your own URLs: $BIN get URL -s 320x320 -o out.jpg"
