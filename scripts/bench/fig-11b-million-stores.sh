#!/usr/bin/env bash
# fig-11b-million-stores.sh BIN: figure 11b of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=11b (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=11b exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 11b: the same at 1,000,000 entries
# Figure 11 at 1,000,000 entries: M ~ 200,000 stores (one full eviction cycle: the first store trims
# the cache to 80%, a scan of 1M entries and ~200,000 removals) into a full cache of 1,000,000
# entries at its limit vs into an empty cache. The full cache is generated afresh for each run
# (fake-cache, ~1.5 min, untimed), not a `cp -al` copy of $CD1M: its files have their own inodes,
# so the trim frees them as it would in a user's cache (a copy's trim only drops links). The sources
# are hard links to copies of the template image (40,000 links per copy: ext4 allows 65,000).
# Timed with /usr/bin/time: the ratio is on CPU time (user + sys), which load from other processes
# does not inflate; wall times and peak RSS are in the note. Rounds (BENCH_1M_ROUNDS, default 1)
# alternate the order. Used trees are removed after the last timed run, never between them.
# Settling: ext4 without a journal (this bench's 2-core VM) does not reuse an inode for 60 s after it
# is freed, 360 s while its inode-table block is dirty (as it is again once files are created next to
# it), and every file creation scans past all such inodes: a run started within 6 min of a large
# removal (a previous run's trees, or the trim of a previous full run, ~400,000 inodes) is slowed by
# it, 3-4x. So before each timed run: sync, and wait until 365 s have passed since the last removal
# (rm_tree, figure 11, a full run). A full run's own trim does slow its own later stores on such a
# file system: that is counted, as a user would see it. Removals by other processes are not known.
# Runs with ONLY=11b or BENCH_1M_CYCLE=1: ~10 min for one round (about half of it removing the used
# trees at the end), ~35 min for two (the 6-min waits).
if want 11b || { [[ "${BENCH_1M_CYCLE:-0}" == 1 ]] && want 11; }; then
  log "figure 11b: store cost, full cache of 1,000,000 entries vs empty (one eviction cycle)"
  ensure_cache_1m; template_entry
  D11B="$RUN/f11b"; rm_tree "$D11B"; mkdir -p "$D11B/src" "$D11B/used"
  settle() {
    sync
    local w=$(( LAST_RM + 365 - $(date +%s) ))
    if ((w > 0)); then echo "   waiting ${w} s (inodes freed in the last 6 min are scanned past on each creation)" >&2; sleep "$w"; fi
  }
  read -r N11B L11B < <(python3 "$HERE/report.py" footprint "$CD1M")
  S11B=$(stat -c %s "${TPL%.meta}.jpg")
  M11B=$(( (L11B - L11B * 8 / 10) / (S11B + 512) - 10 ))
  python3 - "${TPL%.meta}.jpg" "$D11B" "$M11B" <<'PY'
import os, shutil, sys
image, d, m = sys.argv[1], sys.argv[2], int(sys.argv[3])
per_inode = 40000
names = ["f%d.jpg" % i for i in range(m)]
for i, name in enumerate(names):
    base = os.path.join(d, "base-%d.jpg" % (i // per_inode))
    if i % per_inode == 0:
        shutil.copyfile(image, base)
    os.link(base, os.path.join(d, "src", name))
with open(os.path.join(d, "list.txt"), "w") as f:
    for name in sorted(names):   # `ls` order, as figure 11
        f.write(os.path.join(d, "src", name) + "\n")
PY
  ROUNDS11B=${BENCH_1M_ROUNDS:-1}
  P11B=("$BIN" prefetch "$D11B/list.txt" --cache-size-limit "$L11B" --no-progress --quiet)
  e_cpu=(); f_cpu=(); e_wall=(); f_wall=(); e_kb=(); f_kb=(); ends11b=()
  for ((r = 1; r <= ROUNDS11B; r++)); do
    sides=(empty full); ((r % 2 == 0)) && sides=(full empty)
    for side in "${sides[@]}"; do
      if [[ $side == full ]]; then
        echo "-- [f11b] generating the full cache (1,000,000 entries, untimed)" >&2
        fake_cache_1m "$D11B/full"
      fi
      settle
      echo "-- [f11b] round $r/$ROUNDS11B: $M11B stores into the $side cache (load $(cut -d' ' -f1 /proc/loadavg))" >&2
      if /usr/bin/time -f '%M %U %S %e' -o "$RUN/time.txt" "${P11B[@]}" --cache-dir "$D11B/$side" > /dev/null 2> "$RUN/f11b.err"; then
        read -r kb cpu wall < <(awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$RUN/time.txt")
      else
        warn "[f11b] prefetch into the $side cache failed: $(grep -v 'Command exited' "$RUN/f11b.err" | head -2 | tr '\n' ' ')"
        kb=NA; cpu=NA; wall=NA
      fi
      [[ $side == full ]] && LAST_RM=$(date +%s)   # its trim freed ~400,000 inodes
      read -r n b < <(python3 "$HERE/report.py" footprint "$D11B/$side")
      echo "   cpu $cpu s, wall $wall s, peak RSS $kb KB; $n entries, $b bytes after (limit $L11B)" >&2
      if [[ $side == full ]]; then
        f_cpu+=("$cpu"); f_wall+=("$wall"); f_kb+=("$kb"); ends11b+=("$n")
        [[ "$b" -le "$L11B" ]] || warn "[f11b] the full cache ended at $b bytes, over its limit $L11B"
      else
        e_cpu+=("$cpu"); e_wall+=("$wall"); e_kb+=("$kb")
        [[ "$n" -eq "$M11B" ]] || warn "[f11b] the empty cache ended with $n entries, expected $M11B"
      fi
      mv "$D11B/$side" "$D11B/used/$side-$r"
    done
  done
  FC=$(python3 "$HERE/report.py" median "${f_cpu[@]}"); EC=$(python3 "$HERE/report.py" median "${e_cpu[@]}")
  FW=$(python3 "$HERE/report.py" median "${f_wall[@]}"); EW=$(python3 "$HERE/report.py" median "${e_wall[@]}")
  FK=$(python3 "$HERE/report.py" median "${f_kb[@]}"); EK=$(python3 "$HERE/report.py" median "${e_kb[@]}")
  printf '11b\tstore into a full cache (1M)\t%s\t%d\n11b\tstore into an empty cache (1M figure)\t%s\t%d\n' \
    "$(mb "$FK")" "$ROUNDS11B" "$(mb "$EK")" "$ROUNDS11B" >> "$RES/rss.tsv"
  fig 11b "$M11B stores (one eviction cycle) into a full cache of $N11B entries vs an empty one, CPU time" \
    "full cache" "$FC" "empty cache" "$EC" s 2.0 "<= 2.0" \
    "median of $ROUNDS11B; wall $(secs "$FW") vs $(secs "$EW"); peak RSS $(mb "$FK") MB vs $(mb "$EK") MB; limit $L11B bytes; the full cache ends with ${ends11b[*]} entries"
  echo "-- [f11b] removing the used caches ($ROUNDS11B x ~2.4M files: minutes, untimed)" >&2
  rm_tree "$D11B"
fi
