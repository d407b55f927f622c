#!/usr/bin/env bash
# fig-3-peak-rss.sh BIN: figure 3 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=3 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=3 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 3: peak RSS, 6000x4000
if want 3; then
  log "figure 3: peak RSS of a cold get of a 6000x4000 JPEG vs vipsthumbnail"
  mkdir -p "$RUN/f3"
  curl -sSf -o "$RUN/dl/big-00.jpg" "$URL6"
  CD3="$RUN/f3-cache"
  ga=(); va=(); gt=(); vt=()
  for ((k = 0; k < RSS3; k++)); do
    read -r kb s < <(rss_one "rm -rf $(q "$CD3")" "$BIN" get "$URL6" $TH -q 80 -o "$RUN/f3/get.jpg" --cache-dir "$CD3")
    ga+=("$kb"); gt+=("$s")
    rss_baseline 3 "imgfetch get 6000x4000 (cold)" "$kb" "$s" "rm -rf $(q "$CD3")" get "$URL6" $TH -q 80 -o "$RUN/f3/get.jpg" --cache-dir "$CD3"
    read -r kb s < <(rss_one "true" vipsthumbnail "$RUN/dl/big-00.jpg" $TH -o "$RUN/f3/vt.jpg[Q=80]")
    va+=("$kb"); vt+=("$s")
  done
  fits "$RUN/f3/get.jpg" f3; fits "$RUN/f3/vt.jpg" f3
  A=$(mb "$(python3 "$HERE/report.py" median "${ga[@]}")"); B=$(mb "$(python3 "$HERE/report.py" median "${va[@]}")")
  printf '3\timgfetch get 6000x4000 (cold)\t%s\t%d\n3\tvipsthumbnail 6000x4000\t%s\t%d\n' "$A" "$RSS3" "$B" "$RSS3" >> "$RES/rss.tsv"
  fig 3 "peak RSS, cold get 6000x4000 JPEG -> 320x320 (median of $RSS3)" "imgfetch get" "$A" "vipsthumbnail" "$B" MB 1.2 "<= 1.2" \
    "wall $(secs "$(python3 "$HERE/report.py" median "${gt[@]}")") vs $(secs "$(python3 "$HERE/report.py" median "${vt[@]}")")"
fi
