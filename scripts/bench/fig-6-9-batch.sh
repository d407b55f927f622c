#!/usr/bin/env bash
# fig-6-9-batch.sh BIN: figures 6 and 9 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=6,9 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=6,9 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 6 + 9: batch of 200 URLs
if want 6 || want 9; then
  log "figures 6 and 9: prefetch 200 URLs vs curl -Z + 2 vipsthumbnail; all-hit second run"
  CD6="$RUN/f6-cache"; CD6N="$RUN/f6-cache-nko"; CD9="$RUN/f9-cache"; DL6="$RUN/f6-dl"; TH6="$RUN/f6-th"
  PF="$G prefetch $(q "$URLS") $TH -q 80 --no-progress"
  # the all-hit run's cache, filled (and checked) before
  "$BIN" prefetch "$URLS" $TH -q 80 --no-progress --cache-dir "$CD9" 2> "$RUN/f9-fill.err" || warn "[f9] filling prefetch failed"
  "$BIN" prefetch "$URLS" $TH -q 80 --no-progress --cache-dir "$CD9" --json > "$RUN/f9-check.json" 2>/dev/null || warn "[f9] checking prefetch failed"
  read -r tot ok failed hits < <(prefetch_summary "$RUN/f9-check.json")
  [[ "$ok" == 200 && "$hits" == 200 ]] || warn "[f9] all-hit check: total=$tot ok=$ok failed=$failed hits=$hits, expected 200 hits"
  hf f6 "$F6" shell \
    "imgfetch prefetch 200 (cold)" "$PF --cache-dir $(q "$CD6")" "rm -rf $(q "$CD6")" \
    "imgfetch prefetch 200 --no-keep-original (cold)" "$PF --no-keep-original --cache-dir $(q "$CD6N")" "rm -rf $(q "$CD6N")" \
    "curl -Z 8 + 2 vipsthumbnail x 100" \
    "curl -sS -Z --parallel-max 8 --remote-name-all --output-dir $(q "$DL6") -K $(q "$URLCFG") && printf '%s\n' $(q "$DL6")/*.jpg | xargs -n 100 -P 2 vipsthumbnail $TH -o $(q "$TH6/%s.jpg[Q=80]")" \
    "rm -rf $(q "$DL6") $(q "$TH6") && mkdir -p $(q "$DL6") $(q "$TH6")" \
    "imgfetch prefetch 200 (all hits)" "$PF --cache-dir $(q "$CD9")" "true"
  check_cache "$CD6" 200 200 f6; check_cache "$CD6N" 200 0 f6; check_cache "$CD9" 200 200 f9
  count_files "$DL6" 200 f6; count_files "$TH6" 200 f6 fit
  COLD=$(med f6 "imgfetch prefetch 200 (cold)"); SHELLWAY=$(med f6 "curl -Z 8 + 2 vipsthumbnail x 100")
  if want 6; then
    R6=$(python3 -c 'import sys; a, b = sys.argv[1:]; print("moonshot <= 0.7 %s" % ("met" if float(a) / float(b) <= 0.7 else "not met"))' "$COLD" "$SHELLWAY" 2>/dev/null || echo -)
    fig 6 "prefetch 200 x 2000x1500 URLs -> 320x320 q80 (fresh cache)" "imgfetch prefetch" "$COLD" \
      "curl -Z 8 + 2 vipsthumbnail" "$SHELLWAY" s 0.8 "<= 0.8 (moonshot 0.7)" "$R6"
    fig 6b "same, prefetch --no-keep-original" "imgfetch prefetch" "$(med f6 "imgfetch prefetch 200 --no-keep-original (cold)")" \
      "curl -Z 8 + 2 vipsthumbnail" "$SHELLWAY" s 0.8 "<= 0.8 (moonshot 0.7)"
  fi
  if want 9; then
    fig 9 "prefetch 200 URLs again, all hits" "imgfetch prefetch (hits)" "$(med f6 "imgfetch prefetch 200 (all hits)")" \
      "imgfetch prefetch (cold)" "$COLD" s 0.1 "<= 0.1"
  fi
fi
