#!/usr/bin/env bash
# fig-8-batch-rss.sh BIN: figure 8 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=8 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=8 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 8: peak RSS of the batch prefetch
if want 8; then
  log "figure 8: peak RSS of the 200-URL prefetch"
  CD8="$RUN/f8-cache"; pa=(); pt=()
  for ((k = 0; k < RSS8; k++)); do
    read -r kb s < <(rss_one "rm -rf $(q "$CD8")" "$BIN" prefetch "$URLS" $TH -q 80 --no-progress --cache-dir "$CD8")
    pa+=("$kb"); pt+=("$s")
    rss_baseline 8 "imgfetch prefetch 200 (cold)" "$kb" "$s" "rm -rf $(q "$CD8")" prefetch "$URLS" $TH -q 80 --no-progress --cache-dir "$CD8"
  done
  check_cache "$CD8" 200 200 f8
  A=$(mb "$(python3 "$HERE/report.py" median "${pa[@]}")")
  printf '8\timgfetch prefetch 200 (cold)\t%s\t%d\n' "$A" "$RSS8" >> "$RES/rss.tsv"
  fig 8 "peak RSS of prefetch 200 URLs (median of $RSS8)" "imgfetch prefetch" "$A" "limit" 150 MB 1.0 "<= 150 MB" \
    "wall $(secs "$(python3 "$HERE/report.py" median "${pt[@]}")")"
fi
