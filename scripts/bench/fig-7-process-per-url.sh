#!/usr/bin/env bash
# fig-7-process-per-url.sh BIN: figure 7 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=7 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=7 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 7: one process per URL, 50 URLs
if want 7; then
  log "figure 7: 50 x get in a shell loop vs 50 x curl | vipsthumbnail stdin"
  O7A="$RUN/f7-get"; O7B="$RUN/f7-pipe"; CD7="$RUN/f7-cache"
  # vipsthumbnail reads stdin since 8.9 (checked: works with $(vips --version))
  curl -sSf "$URL1" | vipsthumbnail stdin $TH -o "$RUN/f7-probe.jpg[Q=80]" 2>/dev/null && [[ -s "$RUN/f7-probe.jpg" ]] \
    || warn "[f7] 'vipsthumbnail stdin' did not work with $(vips --version); the pipe figure is not valid"
  hf f7 "$F7" shell \
    "imgfetch get x 50 (loop)" "$(q "$HERE/loop.sh") imgfetch $G $(q "$URLS50") $(q "$O7A") $(q "$CD7")" \
    "rm -rf $(q "$O7A") $(q "$CD7") && mkdir -p $(q "$O7A")" \
    "curl | vipsthumbnail stdin x 50 (loop)" "$(q "$HERE/loop.sh") pipe $(q "$URLS50") $(q "$O7B")" \
    "rm -rf $(q "$O7B") && mkdir -p $(q "$O7B")"
  count_files "$O7A" 50 f7 fit; count_files "$O7B" 50 f7 fit
  fig 7 "50 URLs, one process per URL in a shell loop" "imgfetch get loop" "$(med f7 "imgfetch get x 50 (loop)")" \
    "curl | vipsthumbnail stdin" "$(med f7 "curl | vipsthumbnail stdin x 50 (loop)")" s 0.5 "<= 0.5"
fi
