#!/usr/bin/env bash
# fig-17-store-stalls.sh BIN: figure 17 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=17 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=17 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 17: no store stalls on a full cache
# 41 `get FILE -o /dev/null` in a loop (one process each, distinct local copies of the template's
# image, stored as they are) into a copy of a 30,000-entry cache whose --cache-size-limit is lowered
# to 95% of it (its usage total present, as in a cache in use), then the same at 100,000 entries,
# against 40 into an empty cache: every store into the full cache evicts, the first the excess (it
# is left out of the comparison). 17k: what the limit leaves unused at the end (<= 15%). The slowest and the 95th-percentile store
# are compared with the median store into the empty cache (scripts/bench/stores.py times each run).
if want 17; then
  log "figure 17: the slowest store of 40 gets into a full cache"
  template_entry
  D17="$RUN/f17"; mkdir -p "$D17/src"
  C30K="$BENCH_DIR/cache-30k"
  if ! grep -qs '^fake-cache v1 n=30000 ' "$C30K/STAMP"; then
    rm -rf "$C30K"; python3 "$HERE/fake-cache.py" "$C30K" 30000 $TPL
  fi
  ensure_cache_100k
  for i in $(seq 0 129); do cp "${TPL%.meta}.jpg" "$D17/src/s$i.jpg"; done
  srcs() { for i in $(seq "$1" "$2"); do echo "$D17/src/s$i.jpg"; done; }
  read -r N30 L30 < <(python3 "$HERE/report.py" footprint "$C30K")
  read -r N100 L100 < <(python3 "$HERE/report.py" footprint "$CD4")
  python3 "$HERE/stores.py" "$BIN" "$D17/empty" "$L30" $(srcs 0 39) > "$D17/empty.txt" || warn "[f17] gets into the empty cache failed"
  for n in 30 100; do
    src=$C30K; lim=$L30; first=40
    [[ $n == 100 ]] && { src=$CD4; lim=$L100; first=80; }
    rm -rf "$D17/full$n"; cp -al "$src" "$D17/full$n"; rm -f "$D17/full$n/STAMP"
    # Tagged, as a cache imgfetch made is (an untagged one is walked once, on its first store, to be adopted).
    cp "$RUN/tpl-cache/CACHEDIR.TAG" "$D17/full$n/CACHEDIR.TAG"
    # The cache as it is counted, then its limit lowered to 95% of it: the first get deletes the
    # excess (not compared with the others), each later one about its own footprint.
    printf '%-20s g%-20s\n' "$lim" 1 > "$D17/full$n/v1/usage"
    lim=$((lim * 95 / 100))
    [[ $n == 30 ]] && L30=$lim
    [[ $n == 100 ]] && L100=$lim
    sync
    python3 "$HERE/stores.py" "$BIN" "$D17/full$n" "$lim" $(srcs $first $((first + 40))) > "$D17/full$n.txt" || warn "[f17] gets into the ${n}k cache failed"
    sleep 3   # the background scan a get may have started
    read -r _ b17 < <(python3 "$HERE/report.py" footprint "$D17/full$n")
    [[ "$b17" -le "$lim" ]] || warn "[f17] the ${n}k cache ended at $b17 bytes, over its limit $lim"
    [[ $n == 30 ]] && K30=$b17
  done
  read -r e_med f30_max f30_p95 f100_max f100_p95 < <(python3 - "$D17" <<'PY'
import statistics, sys
d = sys.argv[1]
def runs(name, skip=0):
    # In the order run: the first `skip` are left out before sorting.
    try:
        return sorted([float(x) for x in open("%s/%s.txt" % (d, name)).read().split()][skip:])
    except (OSError, ValueError):
        return []
def p95(v):
    return v[max(0, -(-len(v) * 95 // 100) - 1)] if v else float("nan")
e, f30, f100 = runs("empty"), runs("full30", 1), runs("full100", 1)   # after the first, which deletes the excess
med = statistics.median(e) if e else float("nan")
print("%.2f %.2f %.2f %.2f %.2f" % (med, f30[-1] if f30 else float("nan"), p95(f30), f100[-1] if f100 else float("nan"), p95(f100)))
PY
)
  fig 17 "slowest of 40 gets (a store each) into a full cache of $N30 entries vs the median into an empty cache" \
    "slowest" "$f30_max" "empty median" "$e_med" ms 10.0 "<= 10.0" "each store evicts; limit $L30 bytes"
  fig 17p "95th percentile of those 40 gets vs the median into an empty cache" \
    "p95" "$f30_p95" "empty median" "$e_med" ms 3.0 "<= 3.0"
  fig 17k "the limit left unused after those 41 gets (limit - cached) vs the limit (95% of what the cache held)" \
    "unused" "$((L30 - ${K30:-0}))" "limit" "$L30" bytes 0.15 "<= 0.15" "cached $K30 bytes: at least 85% of the limit"
  fig 17L "slowest of 40 gets into a full cache of $N100 entries vs the median into an empty cache" \
    "slowest" "$f100_max" "empty median" "$e_med" ms 10.0 "<= 10.0" "limit $L100 bytes"
  fig 17Lp "95th percentile of those 40 gets vs the median into an empty cache" \
    "p95" "$f100_p95" "empty median" "$e_med" ms 3.0 "<= 3.0"
  rm -rf "$D17"; LAST_RM=$(date +%s)
fi
