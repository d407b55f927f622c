#!/usr/bin/env bash
# fig-1-cold-get.sh BIN: figure 1 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=1 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=1 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 1: cold get vs vipsthumbnail
if want 1; then
  log "figure 1: cold get (2000x1500 -> 320x320 q80) vs vipsthumbnail"
  mkdir -p "$RUN/dl" "$RUN/f1"
  curl -sSf -o "$RUN/dl/img-000.jpg" "$URL1"
  CD1="$RUN/f1-cache"
  hf f1 "$F1" shell \
    "imgfetch get URL (cold)" "$G get $(q "$URL1") $TH -q 80 -o $(q "$RUN/f1/get.jpg") --cache-dir $(q "$CD1")" "rm -rf $(q "$CD1") $(q "$RUN/f1/get.jpg")" \
    "vipsthumbnail FILE" "vipsthumbnail $(q "$RUN/dl/img-000.jpg") $TH -o $(q "$RUN/f1/vt.jpg[Q=80]")" "rm -f $(q "$RUN/f1/vt.jpg")"
  fits "$RUN/f1/get.jpg" f1; fits "$RUN/f1/vt.jpg" f1
  check_cache "$CD1" 1 1 f1
  fig 1 "cold get 2000x1500 JPEG -> 320x320 q80 (fresh cache)" "imgfetch get" "$(med f1 "imgfetch get URL (cold)")" \
    "vipsthumbnail" "$(med f1 "vipsthumbnail FILE")" s 1.0 "<= 1.0"
fi
