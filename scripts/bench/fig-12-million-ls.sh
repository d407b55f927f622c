#!/usr/bin/env bash
# fig-12-million-ls.sh BIN: figure 12 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=12 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=12 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 12: cache ls of 1,000,000 entries
# Streams in key order: time to the first entry, and the whole listing against 10 x the 100,000-entry
# listing, both warm (one untimed listing of each first). The ratio is on CPU time (user + sys of
# /usr/bin/time), which load from other processes does not inflate; wall times are in the note.
if want 12; then
  log "figure 12: cache ls of 1,000,000 entries"
  ensure_cache_100k; ensure_cache_1m
  "$BIN" cache ls --cache-dir "$CD4" > /dev/null; "$BIN" cache ls --cache-dir "$CD1M" > /dev/null   # page cache warm
  read -r f100 t100 n100 < <(python3 "$HERE/report.py" firstline "$BIN" cache ls --cache-dir "$CD4")
  read -r f1m t1m n1m < <(python3 "$HERE/report.py" firstline "$BIN" cache ls --cache-dir "$CD1M")
  [[ "$n1m" -eq 1000001 && "$n100" -eq 100001 ]] || warn "[f12] cache ls printed $n1m and $n100 lines, expected 1,000,001 and 100,001"
  cpu_one() {   # cpu_one CMD... -> "PEAK_KB CPU_SECONDS WALL_SECONDS"
    /usr/bin/time -f '%M %U %S %e' -o "$RUN/time.txt" "$@" > /dev/null 2>&1 || { echo "NA NA NA"; return; }
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$RUN/time.txt"
  }
  read -r k100 c100 w100 < <(cpu_one "$BIN" cache ls --cache-dir "$CD4")
  read -r k1m c1m w1m < <(cpu_one "$BIN" cache ls --cache-dir "$CD1M")
  printf '12\timgfetch cache ls (100k)\t%s\t1\n12\timgfetch cache ls (1M)\t%s\t1\n' "$(mb "$k100")" "$(mb "$k1m")" >> "$RES/rss.tsv"
  C10=$(python3 -c 'import sys; print(10 * float(sys.argv[1]))' "$c100")
  fig 12 "cache ls CPU time, 1,000,000 entries vs 10 x 100,000" "1M entries" "$c1m" "10 x 100k" "$C10" s 1.0 "<= 1.0" \
    "wall $(secs "$t1m") vs $(secs "$t100") (and $(secs "$w1m") vs $(secs "$w100")); first entry after $(python3 -c 'import sys; v=sys.argv[1]; print("n/a" if v == "NA" else "%.0f ms" % (float(v) * 1000))' "$f1m") (1M; target 100 ms); peak RSS $(mb "$k1m") MB (1M) vs $(mb "$k100") MB (100k)"
fi
