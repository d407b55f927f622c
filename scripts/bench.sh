#!/usr/bin/env bash
# bench.sh BIN -- imgfetch's benchmark suite: every figure is a RATIO of imgfetch to a reference tool
# (vipsthumbnail, curl, aria2c, img2dataset) measured side by side in the same hyperfine runs, so machine noise
# mostly cancels out; raw medians are printed too.
#
# Usage:  scripts/bench.sh .build/release/imgfetch          # full run, ~3 min (+~1.5 min one-off setup)
#         QUICK=1 scripts/bench.sh .build/release/imgfetch  # fewer runs, ~1.5 min (+~1.5 min one-off setup)
#         (figures 23 and 24 add ~6 min, ~4 with QUICK=1, and a one-off set-up of ~35 min on 2 busy cores:
#         the web-sized corpus and figure 23's 64 finished shards, kept under BENCH_DIR)
#         ONLY=1,2,6 scripts/bench.sh BIN                   # a subset of figures (6 and 9 run together)
#         ONLY=11b BENCH_1M_ROUNDS=2 scripts/bench.sh BIN    # figure 11b alone (not in a default run)
#         scripts/bench/fig-1-cold-get.sh BIN             # one figure (or group) alone: its script under
#                                                           # scripts/bench/ runs this driver with its ONLY
#         BASELINE_BIN=OLD/imgfetch scripts/bench.sh NEW/imgfetch   # new vs old, side by side (below)
# Env:    BENCH_DIR=/tmp/imgfetch-bench (corpus, reusable caches, results)   BENCH_PORT=18090
#         VIPS_CONCURRENCY=2 (for imgfetch and vipsthumbnail alike)   HF_TIMEOUT=600 (s per hyperfine call)
#         BENCH_SERVER=python (use the Python fallback server even when nginx is installed)
# Needs:  vips, vipsthumbnail, vipsheader (libvips-tools), hyperfine, curl, python3, /usr/bin/time (time);
#         nginx (nginx-light; else a Python server, and figures 10, 15, 16, 23 and 24 are skipped), aria2c
#         (aria2; else figure 10 is skipped), img2dataset 1.47 (IMG2DATASET=PATH, default the venv
#         /opt/img2dataset-1.47; else figure 24 is skipped). `make bench` installs them.
# Output: progress and hyperfine output on stderr; the final table on stdout and in
#         $BENCH_DIR/results/<stamp>/table.md, beside the hyperfine JSON, figures.tsv, rss.tsv, warnings.txt.
#
# Figures (imgfetch vs reference; target on the ratio):
#   1  cold `get` URL 2000x1500 -> 320x320 q80, fresh cache  vs vipsthumbnail on the downloaded file  <= 1.0
#   2  warm-hit `get URL -o -`                               vs curl -s file://CACHED-FILE            <= 0.8
#   3  peak RSS, cold `get` of a 6000x4000 JPEG              vs vipsthumbnail on the file             <= 1.2
#   4  `cache ls` over 100,000 entries                       vs 2 s                                   <= 1.0
#   4f the same through 5 filters every entry passes          vs plain `cache ls` (figure 4)           <= 1.2
#   5  all-hit `prefetch` of 10,000 local files (-s 64)      vs 1 s                                   <= 1.0
#   6  `prefetch` 200 URLs -> 320x320 q80, fresh cache       vs curl -Z 8 + 2 vipsthumbnail x 100     <= 0.8
#   7  50 x `get URL` in a shell loop                        vs 50 x curl URL | vipsthumbnail stdin   <= 0.5
#   8  peak RSS of the figure-6 prefetch                     vs 150 MB                                <= 1.0
#   9  all-hit second run of the figure-6 prefetch           vs the cold run                          <= 0.1
#  10  `prefetch -j 8` of 24 URLs at 512 KB/s per connection vs aria2c -j 8 -x 1                      <= 1.0
#  11  one eviction cycle of stores into a full 100k cache   vs the same stores into an empty cache   <= 2.0
#  18  cold `get` as figure 1 with --placeholder blurhash,thumbhash  vs the same without, on user CPU
#      time; target: at most 1 ms more (the ratio's target is 1 + 1 ms / its time; the difference and
#      the wall medians are in the note)
#  19  cold `get` as figure 1 with -f auto (webp and jpeg)   vs the same with -f webp (one encode)       <= 2.0
#  11b the same at 1,000,000 entries (~200,000 stores), CPU time (+ wall, RSS): only with ONLY=11b or
#      BENCH_1M_CYCLE=1 (~10 min for one round, ~35 min for two: see the figure); BENCH_1M_ROUNDS=1
#  12  `cache ls` of 1,000,000 entries, CPU (+ first entry, wall, RSS) vs 10 x `cache ls` of 100,000 <= 1.0
#  13  `cache prune --max-size` of 1,000,000 entries (+ RSS) vs find -printf (a stat of every file)   <= 5.0
#  14  fidelity (scripts/fidelity.py): PSNR median/min vs a float Lanczos3 reference and vs vipsthumbnail's,
#      ΔE00 of ICC-tagged sources, size mismatches, zone-plate moiré, on the test fixtures and Debian's
#      wallpapers (/usr/share/backgrounds, gnome-backgrounds) when installed; printed after the table
#  15  remote hit: `get` with an empty local cache, the thumbnail in an nginx WebDAV tier
#                                                            vs curl of the same object               <= 1.5
#  16  `prefetch` 200 URLs, every image in the remote tier, empty local cache
#                                                            vs the cold prefetch                     <= 0.2
#  17  41 x `get FILE` (a store each) into a cache of 30,000 entries, its limit lowered to 95% of it: of
#      the 40 after the first (which deletes the excess), the slowest and the 95th-percentile store vs
#      the median store into an empty cache (17: slowest <= 10, 17p: p95 <= 3); 17k: (limit - cached) /
#      limit <= 0.15;
#      17L, 17Lp: the same at 100,000 entries (no store pays for a whole trim or scan)
#  20  resumed `get` of an 8 MB JPEG over a 2 MB/s trickle, after a first run cut by --timeout 2
#      (time and bytes of the second run)                    vs an uninterrupted `get` of it          <= 0.6
#  21  cold `get -s 320x320 --low-data` of a progressive 9.6 MB photo over a 2 MB/s trickle (time and
#      bytes: a partial read)                                 vs the same `get` without --low-data     <= 0.5
#  22  figure 6's prefetch as one shard (--shard 1/1 --shard-dir), with --shard-tar (cold; 22b: all hits)
#                                                            vs the same without --shard-tar          <= 1.05
#  23  rerun of a finished 1,000,000-line list in 64 shards (64 x `prefetch --shard K/64 --shard-dir`, each
#      finding its marker), one after another               vs 10 s                                  <= 1.0
#      (set-up: the 64 shards run once, ~35 min on 2 busy cores, kept under BENCH_DIR/shards-1m)
#      (checked: each says `already done`, nginx logs no request; 64 x sha256sum of the list beside it)
#  24  `prefetch` 2,000 web-sized JPEGs (1000x750) -> 320x320 q80, -j 16, fresh cache
#                                                            vs img2dataset 1.47, same list and work  <= 0.5
#  24b the same runs' CPU per image (user + system, children included)   vs img2dataset's             <= 0.5
#  25  cold `get FILE -s 320x320` per source format (scripts/bench/make-formats.sh), in its own format:
#      25j JPEG -> WebP, 25p PNG RGB, 25a PNG RGBA, 25w WebP, 25g a still GIF -> -f auto, 25n an animated
#      GIF (20 frames)                                   vs vipsthumbnail FILE doing the same  <= issue 44's
#      instruction targets (0.45, 0.6, 0.6, 0.7, 0.6, 0.5)
# Baseline: with BASELINE_BIN=PATH every imgfetch command of a hyperfine figure (1, 2, 4-7, 9-11, 15,
#   16, 18, 19, 25) runs also with PATH, in the same rounds (alternating order, same preparation and caches: an
#   all-hit twin reads the cache the new binary filled), and figures 3 and 8 measure PATH after each run;
#   the table then ends with each command's median new, baseline and new/baseline. Figures timed outside
#   hyperfine (11b, 12, 13, 17, 20, 21) measure BIN only: run them alone with each binary to compare them.
# Only 127.0.0.1 is contacted. Reuses the corpus, the 100,000- and 1,000,000-entry caches and (for the same
# binary) the 10,000-entry cache under $BENCH_DIR; everything else is rebuilt per run.
set -euo pipefail

BIN=${1:?usage: scripts/bench.sh PATH/TO/imgfetch}
[[ -x "$BIN" ]] || { echo "bench: $BIN is not an executable (build it first: make build)" >&2; exit 1; }
BIN_SHOWN=$BIN
BIN=$(realpath "$BIN")
HERE=$(cd "$(dirname "$0")" && pwd)/bench
BENCH_DIR=${BENCH_DIR:-/tmp/imgfetch-bench}
mkdir -p "$BENCH_DIR"
BENCH_DIR=$(realpath "$BENCH_DIR")
# One run per directory: a second would stop the first's servers and remove its files.
if [[ -f "$BENCH_DIR/.pid" ]] && kill -0 "$(cat "$BENCH_DIR/.pid" 2>/dev/null)" 2>/dev/null; then
  echo "bench.sh: run $(cat "$BENCH_DIR/.pid") is using $BENCH_DIR (give this one its own BENCH_DIR and BENCH_PORT)" >&2
  exit 2
fi
echo $$ > "$BENCH_DIR/.pid"
QUICK=${QUICK:-0}
ONLY=${ONLY:-1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25}
HF_TIMEOUT=${HF_TIMEOUT:-600}
export VIPS_CONCURRENCY=${VIPS_CONCURRENCY:-2}
export LC_ALL=C

CORPUS="$BENCH_DIR/corpus"
RUN="$BENCH_DIR/run"                         # scratch, wiped per run
RES="$BENCH_DIR/results/$(date +%Y%m%d-%H%M%S)"
T0=$(date +%s)

# runs per figure: ROUNDS hyperfine invocations of RUNS runs each (see hf), WARMUP in the first round
if [[ "$QUICK" == 1 ]]; then
  F1="2 8 2";  F2="2 40 5"; F4="1 3 1"; F5="1 3 0"; F6="3 1 0"; F7="2 1 0"; F10="2 1 0"; F23="2 1 0"; RSS3=3; RSS8=1
else
  F1="3 15 3"; F2="4 50 10"; F4="1 5 1"; F5="1 7 1"; F6="7 1 1"; F7="5 1 1"; F10="3 1 0"; F23="3 1 0"; RSS3=3; RSS8=3
fi

log() { printf '\033[1m== %s\033[0m  (%ss, load %s)\n' "$*" "$(( $(date +%s) - T0 ))" "$(cut -d' ' -f1-3 /proc/loadavg)" >&2; }
warn() { echo "$*" >> "$RES/warnings.txt"; echo "WARNING: $*" >&2; }
want() { [[ ",$ONLY," == *",$1,"* ]]; }
q() { printf '%q' "$1"; }

# The set-up (tools, binary snapshot, corpus, server) and the helpers, then every figure in order: one
# script per figure or group under scripts/bench/, each runnable alone (it runs this driver with its ONLY).
source "$HERE/setup.sh"
source "$HERE/lib.sh"
PARTS=(
  fig-1-cold-get.sh fig-18-19-placeholders-auto.sh fig-2-warm-hit.sh fig-3-peak-rss.sh
  fig-4-cache-ls.sh fig-5-all-hit-prefetch.sh fig-6-9-batch.sh fig-8-batch-rss.sh
  fig-7-process-per-url.sh fig-10-slow-server.sh fig-11-full-cache-stores.sh fig-17-store-stalls.sh
  fig-11b-million-stores.sh fig-12-million-ls.sh fig-13-million-prune.sh fig-15-16-remote-tier.sh
  fig-20-resume.sh fig-21-low-data.sh fig-22-shard-tar.sh fig-23-shard-rerun.sh fig-24-img2dataset.sh
  fig-25-formats.sh fig-14-fidelity.sh
)
for part in "${PARTS[@]}"; do
  # shellcheck source=/dev/null
  source "$HERE/$part"
done

# ------------------------------------------------------------------ report
echo "loadavg at end: $(cat /proc/loadavg); total $(( $(date +%s) - T0 )) s" >> "$RES/env.txt"
log "done"
python3 "$HERE/report.py" table "$RES" | tee "$RES/table.md"
if [[ -n "$BASELINE" ]]; then echo; python3 "$HERE/report.py" baseline "$RES" | tee -a "$RES/table.md"; fi
if [[ -s "$RES/fidelity.json" ]]; then
  echo; /usr/bin/python3 "$(dirname "$HERE")/fidelity.py" text "$RES/fidelity.json" | tee -a "$RES/table.md"
fi
echo
cat "$RES/env.txt"
echo "results in $RES" >&2
rm -rf "$RUN"
