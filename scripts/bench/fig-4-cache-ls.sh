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
  # 4f: the same listing through filters that every entry passes (each is checked, every row is
  # still printed), so the ratio is the filters' own cost; the two commands alternate in each round.
  F4F="--larger-than 0 --smaller-than 1G --newer-than 36500d --format jpeg --source /fake/"
  n=$("$BIN" cache ls --cache-dir "$CD4" $F4F | wc -l)
  [[ "$n" -eq 100001 ]] || warn "[f4f] cache ls $F4F printed $n lines, expected 100,001 (every entry passes)"
  hf f4 "$F4" none "imgfetch cache ls (100k)" "$G cache ls --cache-dir $(q "$CD4")" "" \
    "imgfetch cache ls filtered (100k)" "$G cache ls --cache-dir $(q "$CD4") $F4F" ""
  fig 4 "cache ls, 100,000 entries" "imgfetch cache ls" "$(med f4 "imgfetch cache ls (100k)")" "limit" 2 s 1.0 "<= 2 s" \
    "page cache warm; the first, untimed listing took $t4 s"
  # CPU (user + system) means beside the wall medians: under load the wall times wander most.
  cpu4=$(python3 - "$RES" <<'PY'
import glob, json, sys
cpu = {}
for path in glob.glob(sys.argv[1] + "/f4.r*.json"):
    for r in json.load(open(path))["results"]:
        cpu.setdefault(r["command"], []).append(r["user"] + r["system"])
m = {k: sum(v) / len(v) for k, v in cpu.items()}
a, b = m.get("imgfetch cache ls filtered (100k)"), m.get("imgfetch cache ls (100k)")
print("CPU %.2f s vs %.2f s (%.2fx)" % (a, b, a / b) if a and b else "CPU n/a")
PY
)
  fig 4f "cache ls with 5 filters, 100,000 entries" "imgfetch cache ls $F4F" "$(med f4 "imgfetch cache ls filtered (100k)")" \
    "imgfetch cache ls" "$(med f4 "imgfetch cache ls (100k)")" s 1.2 "<= 1.2" "every entry passes the filters (the same 100,001 lines); $cpu4"
fi
