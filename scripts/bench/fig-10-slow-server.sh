#!/usr/bin/env bash
# fig-10-slow-server.sh BIN: figure 10 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=10 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=10 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 10: slow server
if want 10; then
  if [[ $HAVE_NGINX == 0 || $HAVE_ARIA == 0 ]]; then
    why=$([[ $HAVE_NGINX == 0 ]] && echo "no nginx, so no rate-limited /slow/" || echo "aria2c missing")
    echo "figure 10 skipped: $why" >&2
    fig 10 "24 URLs at 512 KB/s per connection" "imgfetch prefetch -j 8" NA "aria2c -j 8" NA s 1.0 "<= 1.0" "SKIP: $why"
  else
    log "figure 10: 24 URLs from /slow/ (512 KB/s per connection): prefetch -j 8 vs aria2c -j 8"
    CD10="$RUN/f10-cache"; D10="$RUN/f10-aria"
    hf f10 "$F10" shell \
      "imgfetch prefetch -j 8 (slow)" "$G prefetch $(q "$URLS_SLOW") $TH -q 80 -j 8 --no-progress --cache-dir $(q "$CD10")" "rm -rf $(q "$CD10")" \
      "aria2c -j 8 -x 1 (slow)" "aria2c -q -j 8 -x 1 -d $(q "$D10") -i $(q "$URLS_SLOW") --allow-overwrite=true --auto-file-renaming=false --file-allocation=none" \
      "rm -rf $(q "$D10") && mkdir -p $(q "$D10")"
    check_cache "$CD10" 24 24 f10; count_files "$D10" 24 f10
    want_bytes=$(head -24 "$URLS" | sed 's|.*/||' | (cd "$CORPUS/jpg" && xargs cat) | wc -c)
    got_bytes=$(cat "$D10"/*.jpg 2>/dev/null | wc -c)
    [[ "$got_bytes" == "$want_bytes" ]] || warn "[f10] aria2c downloaded $got_bytes bytes, expected $want_bytes"
    fig 10 "24 URLs at 512 KB/s per connection (+ thumbnails for imgfetch)" "imgfetch prefetch -j 8" "$(med f10 "imgfetch prefetch -j 8 (slow)")" \
      "aria2c -j 8 -x 1" "$(med f10 "aria2c -j 8 -x 1 (slow)")" s 1.0 "<= 1.0"
  fi
fi
