#!/usr/bin/env bash
# fig-15-16-remote-tier.sh BIN: figures 15 and 16 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=15,16 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=15,16 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 15, 16: the remote cache tier
if want 15 || want 16; then
  if [[ $HAVE_NGINX == 0 ]]; then
    echo "figures 15 and 16 skipped: no nginx (the WebDAV remote tier)" >&2
    fig 15 "remote hit" "imgfetch get" NA "curl" NA s 1.5 "<= 1.5" "SKIP: no nginx"
  else
    log "figures 15 and 16: the remote cache tier (nginx WebDAV on 127.0.0.1)"
    TIER=$("$(dirname "$HERE")/dav-nginx.sh" "$RUN/tier")
    CD15F="$RUN/f15-fill"; CD15="$RUN/f15-cache"; CD16="$RUN/f16-cache"; CD16C="$RUN/f16-cold"
    # fill the tier: one get and one prefetch of the 200 URLs, uploads waited for before exit
    "$BIN" get "$URL1" $TH -o "$RUN/f15-first.jpg" --cache-dir "$CD15F" --remote-cache "$TIER" || warn "[f15] filling get failed"
    "$BIN" prefetch "$URLS" $TH -q 80 --no-progress --cache-dir "$CD15F" --remote-cache "$TIER" 2> "$RUN/f16-fill.err" || warn "[f16] filling prefetch failed"
    KEY15=$("$BIN" get "$URL1" $TH -o "$RUN/f15-k.jpg" --json --cache-dir "$CD15F" 2>/dev/null > "$RUN/f15-key.json"; python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["key"])' "$RUN/f15-key.json" 2>/dev/null || echo NA)
    OBJ15="$TIER$KEY15.jpg"
    curl -sf -o "$RUN/f15-curl.jpg" "$OBJ15" || warn "[f15] the tier has no object $OBJ15"
    "$BIN" get "$URL1" $TH -o "$RUN/f15-check.jpg" --json --cache-dir "$CD15" --remote-cache "$TIER" > "$RUN/f15-check.json" 2>/dev/null || warn "[f15] remote-hit get failed"
    grep -q '"cache":"remote"' "$RUN/f15-check.json" || warn "[f15] the get was not a remote hit: $(head -c 300 "$RUN/f15-check.json")"
    cmp -s "$RUN/f15-check.jpg" "$RUN/f15-curl.jpg" || warn "[f15] the remote hit differs from the tier's object"
    if want 15; then
      hf f15 "$F2" shell \
        "imgfetch get URL (remote hit, empty local cache)" "$G get $(q "$URL1") $TH -o $(q "$RUN/f15-out.jpg") --cache-dir $(q "$CD15") --remote-cache $(q "$TIER")" "rm -rf $(q "$CD15")" \
        "curl -s TIER/KEY.jpg" "curl -sf -o $(q "$RUN/f15-curl2.jpg") $(q "$OBJ15")" "true"
      fig 15 "remote hit: get with an empty local cache, thumbnail in the HTTP tier" "imgfetch get" \
        "$(med f15 "imgfetch get URL (remote hit, empty local cache)")" "curl of the object" "$(med f15 "curl -s TIER/KEY.jpg")" s 1.5 "<= 1.5"
    fi
    if want 16; then
      PF16="$G prefetch $(q "$URLS") $TH -q 80 --no-progress"
      hf f16 "$F6" shell \
        "imgfetch prefetch 200 (all in the remote tier)" "$PF16 --cache-dir $(q "$CD16") --remote-cache $(q "$TIER") --remote-cache-mode read" "rm -rf $(q "$CD16")" \
        "imgfetch prefetch 200 (cold)" "$PF16 --cache-dir $(q "$CD16C")" "rm -rf $(q "$CD16C")"
      "$BIN" prefetch "$URLS" $TH -q 80 --no-progress --json --cache-dir "$RUN/f16-check" --remote-cache "$TIER" --remote-cache-mode read > "$RUN/f16-check.json" 2>/dev/null || warn "[f16] checking prefetch failed"
      n16=$(grep -c '"cache":"remote"' "$RUN/f16-check.json" || true)
      [[ "$n16" -eq 200 ]] || warn "[f16] $n16 of 200 images came from the remote tier"
      fig 16 "prefetch 200 URLs, every image in the remote tier, empty local cache" "imgfetch prefetch (remote)" \
        "$(med f16 "imgfetch prefetch 200 (all in the remote tier)")" "imgfetch prefetch (cold)" "$(med f16 "imgfetch prefetch 200 (cold)")" s 0.2 "<= 0.2"
    fi
    kill "$(cat "$RUN/tier/nginx.pid")" 2>/dev/null || true; rm -f "$RUN/tier/nginx.pid"
  fi
fi
