#!/usr/bin/env bash
# fig-2-warm-hit.sh BIN: figure 2 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=2 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=2 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 2: warm hit vs curl file://
if want 2; then
  log "figure 2: warm-hit get -o - vs curl file://"
  CD2="$RUN/f2-cache"
  "$BIN" get "$URL1" $TH -o - --cache-dir "$CD2" > "$RUN/f2-first.jpg" || warn "[f2] filling get failed"
  "$BIN" get "$URL1" $TH -o - --cache-dir "$CD2" -v > "$RUN/f2-hit.jpg" 2> "$RUN/f2-hit.err" || warn "[f2] hit get failed"
  grep -qw hit "$RUN/f2-hit.err" || warn "[f2] the second get was not reported as a hit: $(head -1 "$RUN/f2-hit.err")"
  "$BIN" cache ls --json --cache-dir "$CD2" > "$RUN/f2-ls.json"
  read -r _ _ CACHED < <(python3 "$HERE/report.py" lsjson "$RUN/f2-ls.json")
  if [[ -f "$CACHED" ]]; then
    cmp -s "$RUN/f2-hit.jpg" "$CACHED" || warn "[f2] get -o - output differs from the cached file $CACHED"
    fits "$CACHED" f2
    hf f2 "$F2" none \
      "imgfetch get URL -o - (hit)" "$G get $(q "$URL1") $TH -o - --cache-dir $(q "$CD2")" "" \
      "curl -s file://CACHED" "curl -s $(q "file://$CACHED")" ""
    A=$(med f2 "imgfetch get URL -o - (hit)"); B=$(med f2 "curl -s file://CACHED")
  else
    warn "[f2] no cached variant found in $CD2"; A=NA; B=NA
  fi
  fig 2 "warm-hit get URL -o - ($(stat -c %s "$RUN/f2-hit.jpg" 2>/dev/null || echo ?) B)" "imgfetch get" "$A" "curl file://" "$B" s 0.8 "<= 0.8"
fi
