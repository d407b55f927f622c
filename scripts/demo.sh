#!/usr/bin/env bash
# The main job on an embedded default: serve the bundled sample images on 127.0.0.1, fetch them
# through imgfetch (a miss, then a hit), prefetch a list with a low-data fallback, list the cache.
# The thumbnails and the cache stay in a directory named at the end. Plain text unless stdout is
# a terminal (and TERM is not dumb, and NO_COLOR is unset).
set -euo pipefail
BIN=$(realpath "${1:-.build/release/imgfetch}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d "${TMPDIR:-/tmp}/imgfetch-demo.XXXXXX")
CACHE="$OUT/cache"
export IMGFETCH_CACHE_DIR="$CACHE"
SERVER=$(mktemp -d "${TMPDIR:-/tmp}/imgfetch-demo-server.XXXXXX")

# A local server for the sample images (exits when the pipe to its stdin closes).
exec 3> >(python3 "$ROOT/Tests/Support/e2e_server.py" "$ROOT/Tests/Fixtures" > "$SERVER/port")
for _ in $(seq 50); do [[ -s "$SERVER/port" ]] && break; sleep 0.1; done
BASE="http://127.0.0.1:$(head -1 "$SERVER/port")"
trap 'exec 3>&-; rm -rf "$SERVER"' EXIT

if [[ -t 1 && "${TERM:-dumb}" != dumb && -z "${NO_COLOR:-}" ]]; then
  say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
else
  say() { printf '\n$ %s\n' "$*"; }
fi
run() { say "$*"; "$@"; }

echo "imgfetch demo: sample images served at $BASE, cache in $CACHE"
run "$BIN" get "$BASE/img/photo.jpg" -s 320x320 -o "$OUT/photo-320.jpg" --json
run "$BIN" get "$BASE/img/photo.jpg" -s 320x320 -o "$OUT/photo-320.jpg" --json
say "(the second get was a cache hit: no request, a few milliseconds)"
run "$BIN" get "$BASE/img/photo.jpg" -s 100 -f webp -o "$OUT/photo-100.webp" --verbose
say "(a new variant derived from the cached original bytes, without the network)"

printf '%s\n' "# a prefetch list: one source per line, per-line options after it" \
  "$BASE/img/portrait.jpg" "$BASE/img/alpha.png" "$BASE/img/small.webp" \
  "$BASE/img/photo.jpg?v=big low-data=$BASE/img/tiny.jpg" \
  "$BASE/status/404 alt=$BASE/img/small.gif" > "$OUT/list.txt"
run cat "$OUT/list.txt"
run "$BIN" prefetch "$OUT/list.txt" -s 200x200 --low-data
run "$BIN" cache ls
run "$BIN" cache stats
echo
echo "done: the thumbnails (photo-320.jpg, photo-100.webp), the list and the cache are in $OUT"
echo "try your own: $BIN get URL -s 320x320 -o out.jpg"
echo "kept in: $OUT"
