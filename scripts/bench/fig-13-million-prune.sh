#!/usr/bin/env bash
# fig-13-million-prune.sh BIN: figure 13 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=13 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=13 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 13: cache prune --max-size of 1,000,000 entries
# A copy (hard links) of the 1,000,000-entry cache pruned to half its size, against a stat of every file
# (find -printf), the least any size-based pruning does; peak RSS.
if want 13; then
  log "figure 13: cache prune --max-size of 1,000,000 entries"
  ensure_cache_1m
  D13="$RUN/f13"
  read -r _ L13 < <(python3 "$HERE/report.py" footprint "$CD1M")
  rm -rf "$D13"; cp -al "$CD1M" "$D13"; rm -f "$D13/v1/usage"
  t0=$(date +%s.%N); find "$D13/v1" -type f -printf '%s %T@\n' > /dev/null; tf=$(python3 -c 'import sys; print(float(sys.argv[2]) - float(sys.argv[1]))' "$t0" "$(date +%s.%N)")
  read -r k13 t13 < <(rss_one true "$BIN" cache prune --max-size $(( L13 / 2 )) --cache-dir "$D13")
  read -r n13 b13 < <(python3 "$HERE/report.py" footprint "$D13")
  [[ "$b13" -le $(( L13 / 2 )) ]] || warn "[f13] the pruned cache holds $b13 bytes, over $(( L13 / 2 ))"
  printf '13\timgfetch cache prune --max-size (1M)\t%s\t1\n' "$(mb "$k13")" >> "$RES/rss.tsv"
  fig 13 "cache prune --max-size half of 1,000,000 entries vs find -printf (stat of every file)" "imgfetch cache prune" "$t13" \
    "find -printf" "$tf" s 5.0 "<= 5.0" "peak RSS $(mb "$k13") MB; $n13 entries left"
  rm -rf "$D13"

fi
