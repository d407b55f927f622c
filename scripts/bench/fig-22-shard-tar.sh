#!/usr/bin/env bash
# fig-22-shard-tar.sh BIN: figure 22 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=22 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=22 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 22: --shard-tar
# The figure-6 prefetch (200 URLs -> 320x320 q80, fresh cache) as one shard with --shard-dir, with
# --shard-tar vs without it, side by side in the same hyperfine rounds (22); and the same all hits
# (22b: the cache filled before, so the tar's writing is a larger part of the run). Each run starts
# with an empty shard directory; the tars are checked after (400 members: 200 images, 200 records).
# 22c and 22d: the same runs' CPU time (user + system, hyperfine's), steadier than wall time on busy cores.
if want 22; then
  log "figure 22: prefetch --shard-dir with --shard-tar vs without"
  D22="$RUN/f22"; mkdir -p "$D22"
  P22="$G prefetch $(q "$URLS") $TH -q 80 --no-progress --shard 1/1 --redo"
  "$BIN" prefetch "$URLS" $TH -q 80 --no-progress --cache-dir "$D22/hits" 2> "$RUN/f22-fill.err" || warn "[f22] filling prefetch failed"
  hf f22 "$F6" shell \
    "prefetch --shard-dir (cold)" "$P22 --shard-dir $(q "$D22/plain") --cache-dir $(q "$D22/cold-plain")" \
    "rm -rf $(q "$D22/plain") $(q "$D22/cold-plain")" \
    "prefetch --shard-dir --shard-tar (cold)" "$P22 --shard-dir $(q "$D22/tar") --shard-tar --cache-dir $(q "$D22/cold-tar")" \
    "rm -rf $(q "$D22/tar") $(q "$D22/cold-tar")"
  hf f22b "$F5" shell \
    "prefetch --shard-dir (hits)" "$P22 --shard-dir $(q "$D22/plain-hits") --cache-dir $(q "$D22/hits")" \
    "rm -rf $(q "$D22/plain-hits")" \
    "prefetch --shard-dir --shard-tar (hits)" "$P22 --shard-dir $(q "$D22/tar-hits") --shard-tar --cache-dir $(q "$D22/hits")" \
    "rm -rf $(q "$D22/tar-hits")"
  for t in "$D22/tar/00001-of-00001.tar" "$D22/tar-hits/00001-of-00001.tar"; do
    n=$(python3 -c 'import sys, tarfile; print(len(tarfile.open(sys.argv[1]).getmembers()))' "$t" 2>/dev/null || echo 0)
    [[ "$n" == 400 ]] || warn "[f22] $t holds $n members, expected 400"
  done
  fig 22 "prefetch 200 URLs (fig. 6) as one shard, --shard-tar (cold cache)" "with --shard-tar" \
    "$(med f22 "prefetch --shard-dir --shard-tar (cold)")" "without" "$(med f22 "prefetch --shard-dir (cold)")" s 1.05 "<= 1.05"
  fig 22b "the same, all hits" "with --shard-tar" \
    "$(med f22b "prefetch --shard-dir --shard-tar (hits)")" "without" "$(med f22b "prefetch --shard-dir (hits)")" s 1.05 "<= 1.05"
  # On busy cores the wall times wander far more than the work does: the CPU (user + system) too.
  fig 22c "the cold run's CPU (user + system)" "with --shard-tar" "$(cpu_med f22 "prefetch --shard-dir --shard-tar (cold)")" \
    "without" "$(cpu_med f22 "prefetch --shard-dir (cold)")" s 1.05 "<= 1.05"
  fig 22d "the all-hit run's CPU (user + system)" "with --shard-tar" "$(cpu_med f22b "prefetch --shard-dir --shard-tar (hits)")" \
    "without" "$(cpu_med f22b "prefetch --shard-dir (hits)")" s 1.05 "<= 1.05"
fi
