#!/usr/bin/env bash
# Many machines, one cache: an origin that counts requests and a remote cache tier (nginx with
# WebDAV PUT) on 127.0.0.1; GNU parallel runs 4 workers, each with its own local cache directory
# as separate machines would have, over one list with `prefetch --shard K/4 --remote-cache`; then a
# fifth worker with an empty local cache prefetches the whole list and gets every image from the
# remote tier, without one request reaching the origin. Prints the counts; exits 1 if that fails.
# Usage: scale-demo.sh [IMGFETCH_BINARY] [N_IMAGES]
set -euo pipefail
BIN=$(realpath "${1:-.build/release/imgfetch}")
N=${2:-40}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/imgfetch-scale-demo.XXXXXX")
chmod 755 "$WORK"   # nginx's workers (nobody, as root) reach the tier under it
command -v parallel >/dev/null || { echo "scale-demo: GNU parallel is needed (apt-get install parallel)" >&2; exit 2; }
command -v nginx >/dev/null || { echo "scale-demo: nginx is needed (apt-get install nginx-light)" >&2; exit 2; }

# The origin: the test server, counting every request (exits when the pipe to its stdin closes).
source "$ROOT/scripts/origin-and-tier.sh"   # ORIGIN, REMOTE; both stopped at exit
origin_count() { python3 -c 'import json, sys, urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1] + "/__stats"))["total"])' "$ORIGIN"; }

for i in $(seq "$N"); do
  case $((i % 4)) in 0) f=photo.jpg ;; 1) f=portrait.jpg ;; 2) f=alpha.png ;; *) f=small.webp ;; esac
  echo "$ORIGIN/img/$f?v=$i&cc=max-age%3D3600"
done > "$WORK/list.txt"
echo "scale-demo: $N images at $ORIGIN; remote cache tier $REMOTE (nginx, WebDAV PUT)"

echo "\$ parallel -j4 imgfetch prefetch list.txt --shard {}/4 --remote-cache $REMOTE --cache-dir worker-{} ::: 1 2 3 4"
parallel -j4 --halt now,fail=1 "$BIN" prefetch "$WORK/list.txt" -s 160 --shard {}/4 --remote-cache "$REMOTE" \
  --cache-dir "$WORK/worker-{}" --no-progress ::: 1 2 3 4
AFTER_FOUR=$(origin_count)
OBJECTS=$(find "$WORK/tier/root/cache" -name '*.meta' | wc -l)
echo "origin requests after the 4 workers: $AFTER_FOUR; entries in the remote tier: $OBJECTS"

echo "\$ imgfetch prefetch list.txt --remote-cache $REMOTE --cache-dir worker-5 --json   # a fifth machine, empty cache"
"$BIN" prefetch "$WORK/list.txt" -s 160 --remote-cache "$REMOTE" --cache-dir "$WORK/worker-5" --no-progress --json > "$WORK/fifth.json"
AFTER_FIVE=$(origin_count)
REMOTE_HITS=$(grep -c '"cache":"remote"' "$WORK/fifth.json" || true)
echo "fifth worker: $REMOTE_HITS of $N images from the remote tier; origin requests it made: $((AFTER_FIVE - AFTER_FOUR))"
if [[ "$REMOTE_HITS" -ne "$N" || "$AFTER_FIVE" -ne "$AFTER_FOUR" ]]; then
  echo "scale-demo: FAILED (expected $N remote hits and no origin request)" >&2
  exit 1
fi
echo "scale-demo: ok: $N images fetched once from the origin by 4 workers ($AFTER_FOUR requests), served to a fifth from the remote tier"
