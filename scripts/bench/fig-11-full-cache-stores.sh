#!/usr/bin/env bash
# fig-11-full-cache-stores.sh BIN: figure 11 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=11 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=11 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 11: store into a full cache vs an empty one
# M distinct local files (hard links to one image of the cache's own entries, so new entries are the
# size of the old ones) prefetched as they are (stored, no processing) into (a) an empty cache and
# (b) a copy of the 100,000-entry cache sitting exactly at the same --cache-size-limit. M is one
# eviction cycle: the first store into the full cache trims it to the 80% low-water mark (a scan of
# every entry and ~20,000 removals), the other M-1 fit, so (b) / (a) is the amortised cost of a
# store into a full cache. One run each (a cycle is ~20,000 stores).
if want 11; then
  log "figure 11: store cost, full cache of 100,000 entries vs empty"
  ensure_cache_100k
  D11="$RUN/f11"; mkdir -p "$D11/src"
  read -r N11 L11 < <(python3 "$HERE/report.py" footprint "$CD4")
  SRC11=$(find "$CD4/v1/00" -name '*.jpg' -print -quit)
  S11=$(stat -c %s "$SRC11")
  M11=$(( (L11 - L11 * 8 / 10) / (S11 + 512) - 10 ))
  for ((i = 0; i < M11; i++)); do ln "$SRC11" "$D11/src/f$i.jpg"; done
  ( cd "$D11/src" && ls | sed "s|^|$D11/src/|" ) > "$D11/list.txt"
  P11="prefetch $(q "$D11/list.txt") --cache-size-limit $L11 --no-progress --quiet"
  hf f11 "1 1 0" shell \
    "store into an empty cache" "$G $P11 --cache-dir $(q "$D11/empty")" "rm -rf $(q "$D11/empty")" \
    "store into a full cache (100k)" "$G $P11 --cache-dir $(q "$D11/full")" \
      "rm -rf $(q "$D11/full") && cp -al $(q "$CD4") $(q "$D11/full") && rm -f $(q "$D11/full/v1/usage")"
  read -r n11 b11 < <(python3 "$HERE/report.py" footprint "$D11/full")
  [[ "$b11" -le "$L11" ]] || warn "[f11] the full cache ended at $b11 bytes, over its limit $L11"
  fig 11 "$M11 stores (one eviction cycle) into a full cache of $N11 entries vs an empty one" \
    "full cache" "$(med f11 "store into a full cache (100k)")" "empty cache" "$(med f11 "store into an empty cache")" s 2.0 "<= 2.0" \
    "limit $L11 bytes; the full cache ends with $n11 entries"
  rm -rf "$D11"; LAST_RM=$(date +%s)
fi
