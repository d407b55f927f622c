#!/usr/bin/env bash
# ThreadSanitizer over a prefetch: builds imgfetch with -sanitize=thread (.build/tsan), serves the
# bundled images (the test server) and a remote cache tier (nginx WebDAV) on 127.0.0.1, and runs a
# prefetch of a few hundred lines (alternatives, low-data sources, per-line headers, duplicates) twice:
# filling the tier, then reading it into an empty cache. Any report with a frame in imgfetch's
# Swift code fails; reports only inside C libraries are printed and counted (docs/THREADS.md).
# Usage: tsan.sh [N_LINES]
set -euo pipefail
N=${1:-300}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
swift build --sanitize=thread --scratch-path .build/tsan --product imgfetch
BIN=$ROOT/.build/tsan/debug/imgfetch
WORK=$(mktemp -d "${TMPDIR:-/tmp}/imgfetch-tsan.XXXXXX")
chmod 755 "$WORK"
source "$ROOT/scripts/origin-and-tier.sh"   # ORIGIN, REMOTE; both stopped at exit

for i in $(seq "$N"); do
  case $((i % 6)) in
    0) echo "$ORIGIN/img/photo.jpg?v=$i&cc=max-age%3D600" ;;
    1) echo "$ORIGIN/status/404?v=$i alt=$ORIGIN/img/portrait.jpg?v=$i" ;;
    2) echo "$ORIGIN/img/alpha.png?v=$i low-data=$ORIGIN/img/tiny.jpg?v=$i" ;;
    3) echo "$ORIGIN/slow/small.webp?seconds=0.05&v=$((i / 2)) header=\"X-Line: $i\"" ;;
    4) echo "$ORIGIN/img/small.gif?v=$((i / 12))" ;;
    *) echo "$ORIGIN/img/tiny.jpg?v=$((i / 3))" ;;
  esac
done > "$WORK/list.txt"

export TSAN_OPTIONS="halt_on_error=0 log_path=$WORK/tsan second_deadlock_stack=1"
status=0
for run in fill read; do
  "$BIN" prefetch --cache-dir "$WORK/cache-$run" -s 64 -j 16 --low-data --remote-cache "$REMOTE" --no-progress \
    "$WORK/list.txt" || status=$?
  # 1: some lines fail by design (a 404 whose alternative is a 404 too is not in the list; the rest succeed).
  [[ $status -le 1 ]] || { echo "tsan: prefetch ($run) exited $status" >&2; exit 1; }
done
reports=$(cat "$WORK"/tsan.* 2>/dev/null || true)
total=$(grep -c '^WARNING: ThreadSanitizer' <<<"$reports" || true)
ours=$(awk '/^WARNING: ThreadSanitizer/{r=$0; mine=0} /(ImageFetch|imgfetch)\/.*\.swift/{mine=1} /^SUMMARY: ThreadSanitizer/{if (mine) print r}' <<<"$reports" | wc -l)
echo "tsan: $N lines twice (filling the tier, then reading it): $total report(s), $ours in imgfetch's Swift code"
if [[ $total -gt 0 ]]; then
  grep -E '^SUMMARY: ThreadSanitizer' <<<"$reports" | sort | uniq -c | sort -rn | head -20
fi
if [[ $ours -gt 0 ]]; then
  awk '/^WARNING: ThreadSanitizer/{p=1} p{print} /^SUMMARY/{p=0}' <<<"$reports" | head -120
  exit 1
fi
