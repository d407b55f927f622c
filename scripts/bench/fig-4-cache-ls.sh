#!/usr/bin/env bash
# fig-4-cache-ls.sh BIN: figure 4 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=4 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=4 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 4: cache ls over 100,000 entries
if want 4; then
  log "figure 4: cache ls over 100,000 entries"
  ensure_cache_100k
  t4=$(date +%s.%N)
  rc=0; "$BIN" cache ls --cache-dir "$CD4" > "$RUN/f4-ls.txt" 2> "$RUN/f4-ls.err" || rc=$?
  t4=$(python3 -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$t4" "$(date +%s.%N)")
  n=$(wc -l < "$RUN/f4-ls.txt"); rm -f "$RUN/f4-ls.txt"
  [[ $rc == 0 && "$n" -eq 100001 ]] ||
    warn "[f4] cache ls exited with $rc and printed $n lines, expected 0 and 100,001 (a header and 100,000 entries)"
  hf f4 "$F4" none "imgfetch cache ls (100k)" "$G cache ls --cache-dir $(q "$CD4")" ""
  fig 4 "cache ls, 100,000 entries" "imgfetch cache ls" "$(med f4 "imgfetch cache ls (100k)")" "limit" 2 s 1.0 "<= 2 s" \
    "page cache warm; the first, untimed listing took $t4 s"
fi
