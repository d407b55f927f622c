#!/usr/bin/env bash
# bench.sh BIN -- imgfetch's benchmark suite: every figure is a RATIO of imgfetch to a reference tool
# (vipsthumbnail, curl, aria2c) measured side by side in the same hyperfine runs, so machine noise
# mostly cancels out; raw medians are printed too.
#
# Usage:  scripts/bench.sh .build/release/imgfetch          # full run, ~3 min (+~1.5 min one-off setup)
#         QUICK=1 scripts/bench.sh .build/release/imgfetch  # fewer runs, ~1.5 min (+~1.5 min one-off setup)
#         ONLY=1,2,6 scripts/bench.sh BIN                   # a subset of figures (6 and 9 run together)
#         ONLY=11b BENCH_1M_ROUNDS=2 scripts/bench.sh BIN    # figure 11b alone (not in a default run)
# Env:    BENCH_DIR=/tmp/imgfetch-bench (corpus, reusable caches, results)   BENCH_PORT=18090
#         VIPS_CONCURRENCY=2 (for imgfetch and vipsthumbnail alike)   HF_TIMEOUT=600 (s per hyperfine call)
#         BENCH_SERVER=python (use the Python fallback server even when nginx is installed)
# Needs:  vips, vipsthumbnail, vipsheader (libvips-tools), hyperfine, curl, python3, /usr/bin/time (time);
#         nginx (nginx-light; else a Python server, and figure 10 is skipped), aria2c (aria2; else figure 10
#         is skipped). `make bench` installs them.
# Output: progress and hyperfine output on stderr; the final table on stdout and in
#         $BENCH_DIR/results/<stamp>/table.md, beside the hyperfine JSON, figures.tsv, rss.tsv, warnings.txt.
#
# Figures (imgfetch vs reference; target on the ratio):
#   1  cold `get` URL 2000x1500 -> 320x320 q80, fresh cache  vs vipsthumbnail on the downloaded file  <= 1.0
#   2  warm-hit `get URL -o -`                               vs curl -s file://CACHED-FILE            <= 0.8
#   3  peak RSS, cold `get` of a 6000x4000 JPEG              vs vipsthumbnail on the file             <= 1.2
#   4  `cache ls` over 100,000 entries                       vs 2 s                                   <= 1.0
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
#      the median store into an empty cache (17: slowest <= 10, 17p: p95 <= 3); 17k: (limit - cached) / limit <= 0.15;
#      17L, 17Lp: the same at 100,000 entries (no store pays for a whole trim or scan)
#  20  resumed `get` of an 8 MB JPEG over a 2 MB/s trickle, after a first run cut by --timeout 2
#      (time and bytes of the second run)                    vs an uninterrupted `get` of it          <= 0.6
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
ONLY=${ONLY:-1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20}
HF_TIMEOUT=${HF_TIMEOUT:-600}
export VIPS_CONCURRENCY=${VIPS_CONCURRENCY:-2}
export LC_ALL=C

CORPUS="$BENCH_DIR/corpus"
RUN="$BENCH_DIR/run"                         # scratch, wiped per run
RES="$BENCH_DIR/results/$(date +%Y%m%d-%H%M%S)"
T0=$(date +%s)

# runs per figure: ROUNDS hyperfine invocations of RUNS runs each (see hf), WARMUP in the first round
if [[ "$QUICK" == 1 ]]; then
  F1="2 8 2";  F2="2 40 5"; F4="1 3 1"; F5="1 3 0"; F6="3 1 0"; F7="2 1 0"; F10="2 1 0"; RSS3=3; RSS8=1
else
  F1="3 15 3"; F2="4 50 10"; F4="1 5 1"; F5="1 7 1"; F6="7 1 1"; F7="5 1 1"; F10="3 1 0"; RSS3=3; RSS8=3
fi

log() { printf '\033[1m== %s\033[0m  (%ss, load %s)\n' "$*" "$(( $(date +%s) - T0 ))" "$(cut -d' ' -f1-3 /proc/loadavg)" >&2; }
warn() { echo "$*" >> "$RES/warnings.txt"; echo "WARNING: $*" >&2; }
want() { [[ ",$ONLY," == *",$1,"* ]]; }
q() { printf '%q' "$1"; }

# ------------------------------------------------------------------ tools
MISSING=()
for t in vips vipsthumbnail vipsheader hyperfine curl python3; do
  command -v "$t" >/dev/null || MISSING+=("$t")
done
[[ -x /usr/bin/time ]] || MISSING+=("/usr/bin/time")
if [[ ${#MISSING[@]} -gt 0 ]]; then
  echo "bench: missing ${MISSING[*]}; install with: BENCH_DEPS=1 scripts/install-deps.sh" >&2
  exit 1
fi
HAVE_NGINX=1; command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || HAVE_NGINX=0
[[ "${BENCH_SERVER:-}" == python ]] && HAVE_NGINX=0   # force the fallback server (for testing it)
HAVE_ARIA=1; command -v aria2c >/dev/null || HAVE_ARIA=0

mkdir -p "$RES"
rm -rf "$RUN"; mkdir -p "$RUN"
# Benchmark a snapshot: a rebuild of BIN during the run (other builds on this machine) must not
# swap binaries between figures or make a run fail with "text file busy".
cp "$BIN" "$RUN/imgfetch"; BIN="$RUN/imgfetch"
: > "$RES/warnings.txt"; : > "$RES/figures.tsv"; : > "$RES/rss.tsv"

# ------------------------------------------------------------------ corpus + server
log "corpus"
"$HERE/make-corpus.sh" "$CORPUS" >&2
cat "$CORPUS"/jpg/*.jpg "$CORPUS"/large/*.jpg > /dev/null   # page cache: measure CPU/protocol, not disk

port_free() { python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1])))' "$1" 2>/dev/null; }
PORT=${BENCH_PORT:-18090}
if ! port_free "$PORT"; then
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi
BASE="http://127.0.0.1:$PORT"
NGINX_STATE="$BENCH_DIR/nginx"
SERVER_PID=""; NGINX_STARTED=0
cleanup() {
  if [[ $NGINX_STARTED == 1 ]]; then "$HERE/nginx.sh" stop "$NGINX_STATE" "$CORPUS" "$PORT" >&2 || true; fi
  if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  if [[ -s "$RUN/tier/nginx.pid" ]]; then kill "$(cat "$RUN/tier/nginx.pid")" 2>/dev/null || true; fi   # figures 15, 16
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ $HAVE_NGINX == 1 ]]; then
  NGINX_STARTED=1
  "$HERE/nginx.sh" start "$NGINX_STATE" "$CORPUS" "$PORT" >&2
  SERVER="nginx $(nginx -v 2>&1 | sed 's/.*\///')"
else
  python3 "$HERE/serve.py" "$CORPUS" "$PORT" & SERVER_PID=$!
  SERVER="python3 http.server (nginx missing)"
  for _ in $(seq 1 50); do curl -s -o /dev/null --max-time 1 "$BASE/VERSION" && break; sleep 0.1; done
fi
curl -sf -o /dev/null "$BASE/jpg/img-000.jpg" || { echo "bench: the server does not answer on $BASE" >&2; exit 1; }

URLS="$RUN/urls.txt"; URLCFG="$RUN/urls.curlrc"; URLS50="$RUN/urls-50.txt"; URLS_SLOW="$RUN/urls-slow.txt"
( cd "$CORPUS/jpg" && for f in *.jpg; do echo "$BASE/jpg/$f"; done ) > "$URLS"
sed 's/^/url = /' "$URLS" > "$URLCFG"
head -50 "$URLS" > "$URLS50"
head -24 "$URLS" | sed "s|$BASE/jpg/|$BASE/slow/jpg/|" > "$URLS_SLOW"
URL1="$BASE/jpg/img-000.jpg"; URL6="$BASE/large/big-00.jpg"
SMALL="$CORPUS/small/thumb-20k.jpg"

{
  echo "$(date -Is), $(uname -srm), $(nproc) cpus, QUICK=$QUICK"
  echo "binary: $BIN_SHOWN ($($BIN --version 2>&1 | sed -n 1p), sha256 $(sha256sum "$BIN" | cut -c1-12))"
  echo "vips: $(vips --version); curl: $(curl --version | sed -n 1p | cut -d' ' -f1-2); hyperfine: $(hyperfine --version)"
  echo "aria2c: $([[ $HAVE_ARIA == 1 ]] && aria2c --version | sed -n 1p || echo missing); server: $SERVER on $BASE"
  echo "VIPS_CONCURRENCY=$VIPS_CONCURRENCY; loadavg at start: $(cat /proc/loadavg)"
} > "$RES/env.txt"

# ------------------------------------------------------------------ helpers
# hf ID "ROUNDS RUNS WARMUP" shell|none  LABEL CMD PREPARE [LABEL CMD PREPARE ...]
#   Runs hyperfine ROUNDS times with RUNS runs of every command (the command order is reversed every
#   other round, so a burst of load from another process hits both sides); WARMUP runs in the first
#   round only. With `none` (hyperfine -N) PREPARE must be empty. Failed runs (exit != 0) are kept out of
#   the medians and reported. Result: $RES/ID.tsv (name, median, min, max, runs, failed).
hf() {
  local id=$1 mode=$3 rounds runs warm r i w
  read -r rounds runs warm <<< "$2"
  shift 3
  local labels=() cmds=() preps=()
  while (($#)); do labels+=("$1"); cmds+=("$2"); preps+=("${3:-true}"); shift 3; done
  local n=${#labels[@]}
  for ((r = 1; r <= rounds; r++)); do
    local args=(--style basic -i --runs "$runs" --export-json "$RES/$id.r$r.json")
    w=0; ((r == 1)) && w=$warm
    args+=(--warmup "$w")
    [[ $mode == none ]] && args+=(-N --output=null)
    local order=()
    for ((i = 0; i < n; i++)); do order+=($(( r % 2 == 1 ? i : n - 1 - i ))); done
    for i in "${order[@]}"; do
      [[ $mode == shell ]] && args+=(--prepare "${preps[i]}")
    done
    for i in "${order[@]}"; do args+=(-n "${labels[i]}" "${cmds[i]}"); done
    echo "-- [$id] round $r/$rounds" >&2
    timeout "$HF_TIMEOUT" hyperfine "${args[@]}" >&2 || warn "[$id] hyperfine round $r failed or timed out"
  done
  python3 "$HERE/report.py" combine "$RES" "$id" | while IFS= read -r l; do warn "$l"; done
  return 0
}
med() { awk -F'\t' -v n="$2" '$1 == n { print $2; found = 1 } END { if (!found) print "NA" }' "$RES/$1.tsv" 2>/dev/null || echo NA; }

# fig ID TITLE A_LABEL A_VALUE B_LABEL B_VALUE UNIT TARGET TARGET_TEXT [NOTE]
fig() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10:--}" >> "$RES/figures.tsv"; }

# rss_runs VAR PREPARE CMD... : peak RSS (MB, median of $RSS_N runs of /usr/bin/time) into VAR, NA on failure
rss_one() {   # rss_one PREPARE CMD... -> prints "KB SECONDS" or "NA NA"
  local prep=$1; shift
  bash -c "$prep"
  if /usr/bin/time -f '%M %e' -o "$RUN/time.txt" "$@" > /dev/null 2> "$RUN/rss.err"; then
    tail -1 "$RUN/time.txt"
  else
    warn "peak RSS run failed: $* ($(grep -v 'Command exited' "$RUN/rss.err" | head -2 | tr '\n' ' '))"
    echo "NA NA"
  fi
}
secs() { python3 -c 'import sys; v=sys.argv[1]; print("n/a" if v == "NA" else "%.2f s" % float(v))' "$1"; }
mb() { python3 -c 'import sys; v=sys.argv[1]; print("NA" if v == "NA" else "%.1f" % (float(v) / 1024))' "$1"; }

# fits FILE LABEL: warns unless FILE is a JPEG fitting 320x320 with one side exactly 320
fits() {
  local w h
  w=$(vipsheader -f width "$1" 2>/dev/null || echo 0); h=$(vipsheader -f height "$1" 2>/dev/null || echo 0)
  if [[ "$w" -gt 320 || "$h" -gt 320 || ( "$w" -ne 320 && "$h" -ne 320 ) ]]; then
    warn "[$2] $1 is ${w}x${h}, expected to fit 320x320"
  fi
}
# count_files DIR N LABEL [fit]: warns unless DIR holds N files; with fit, checks the first one's size
count_files() {
  local n first
  n=$(find "$1" -type f 2>/dev/null | wc -l)
  [[ "$n" -eq "$2" ]] || warn "[$3] $1 holds $n files, expected $2"
  if [[ "${4:-}" == fit ]]; then
    first=$(find "$1" -type f -name '*.jpg' 2>/dev/null | sort | sed -n 1p)
    if [[ -n "$first" ]]; then fits "$first" "$3"; fi
  fi
}
# check_cache DIR VARIANTS ORIGINALS LABEL: counts entries via `cache ls --json`, checks a sample variant
check_cache() {
  local v o sample
  "$BIN" cache ls --json --cache-dir "$1" > "$RUN/ls.json" 2>/dev/null || warn "[$4] cache ls --json failed on $1"
  read -r v o sample < <(python3 "$HERE/report.py" lsjson "$RUN/ls.json")
  [[ "$v" == "$2" && "$o" == "$3" ]] || warn "[$4] $1 holds $v variants and $o originals, expected $2 and $3"
  if [[ "$sample" != "-" ]]; then fits "$sample" "$4"; fi
}
# prefetch_summary FILE -> "total ok failed hits" from `prefetch --json` output
prefetch_summary() { python3 "$HERE/report.py" summary "$1"; }

G="$(q "$BIN")"
TH='-s 320x320'

# ------------------------------------------------------------------ 1: cold get vs vipsthumbnail
if want 1; then
  log "figure 1: cold get (2000x1500 -> 320x320 q80) vs vipsthumbnail"
  mkdir -p "$RUN/dl" "$RUN/f1"
  curl -sSf -o "$RUN/dl/img-000.jpg" "$URL1"
  CD1="$RUN/f1-cache"
  hf f1 "$F1" shell \
    "imgfetch get URL (cold)" "$G get $(q "$URL1") $TH -q 80 -o $(q "$RUN/f1/get.jpg") --cache-dir $(q "$CD1")" "rm -rf $(q "$CD1") $(q "$RUN/f1/get.jpg")" \
    "vipsthumbnail FILE" "vipsthumbnail $(q "$RUN/dl/img-000.jpg") $TH -o $(q "$RUN/f1/vt.jpg[Q=80]")" "rm -f $(q "$RUN/f1/vt.jpg")"
  fits "$RUN/f1/get.jpg" f1; fits "$RUN/f1/vt.jpg" f1
  check_cache "$CD1" 1 1 f1
  fig 1 "cold get 2000x1500 JPEG -> 320x320 q80 (fresh cache)" "imgfetch get" "$(med f1 "imgfetch get URL (cold)")" \
    "vipsthumbnail" "$(med f1 "vipsthumbnail FILE")" s 1.0 "<= 1.0"
fi

# ------------------------------------------------------------------ 18, 19: placeholders, -f auto
if want 18; then
  log "figure 18: cold get with --placeholder blurhash,thumbhash vs without"
  mkdir -p "$RUN/f18"; CD18="$RUN/f18-cache"
  hf f18 "$F1" shell \
    "get --placeholder (cold)" "$G get $(q "$URL1") $TH -q 80 --placeholder blurhash,thumbhash --json -o $(q "$RUN/f18/p.jpg") --cache-dir $(q "$CD18") > $(q "$RUN/f18/p.json")" "rm -rf $(q "$CD18") $(q "$RUN/f18/p.jpg")" \
    "get (cold)" "$G get $(q "$URL1") $TH -q 80 --json -o $(q "$RUN/f18/n.jpg") --cache-dir $(q "$CD18") > $(q "$RUN/f18/n.json")" "rm -rf $(q "$CD18") $(q "$RUN/f18/n.jpg")"
  grep -q '"thumbhash"' "$RUN/f18/p.json" || warn "[f18] the record has no thumbhash"
  # On user CPU time (hyperfine's mean of each round, averaged): the wall medians of two ~40 ms
  # commands differ by more than 1 ms from run to run on shared cores; they are in the note.
  read -r a b target note < <(python3 -c 'import glob, json, sys
res, wa, wb = sys.argv[1:4]
cpu = {}
for f in glob.glob(res + "/f18.r*.json"):
    for r in json.load(open(f))["results"]:
        cpu.setdefault(r["command"].split(" --json")[0].count("--placeholder"), []).append(r["user"])
if len(cpu) < 2: print("NA NA 1.0 NA"); sys.exit()
a, b = (sum(cpu[k]) / len(cpu[k]) for k in (1, 0))
print("%.6f %.6f %.4f" % (a, b, 1 + 0.001 / b), "user_CPU_+%.2f_ms_per_image_(target_<=_1_ms);_wall_medians_%s_vs_%s_s" % ((a - b) * 1000, wa, wb))' \
    "$RES" "$(med f18 "get --placeholder (cold)")" "$(med f18 "get (cold)")")
  fig 18 "cold get as figure 1 with --placeholder blurhash,thumbhash (user CPU time)" "with" "$a" "without" "$b" s "$target" "<= +1 ms" "${note//_/ }"
fi
if want 19; then
  log "figure 19: cold get -f auto vs -f webp"
  mkdir -p "$RUN/f19"; CD19="$RUN/f19-cache"
  hf f19 "$F1" shell \
    "get -f auto (cold)" "$G get $(q "$URL1") $TH -q 80 -f auto -o $(q "$RUN/f19/auto") --cache-dir $(q "$CD19")" "rm -rf $(q "$CD19") $(q "$RUN/f19/auto")" \
    "get -f webp (cold)" "$G get $(q "$URL1") $TH -q 80 -f webp -o $(q "$RUN/f19/w.webp") --cache-dir $(q "$CD19")" "rm -rf $(q "$CD19") $(q "$RUN/f19/w.webp")"
  [[ $(stat -c %s "$RUN/f19/auto" 2>/dev/null || echo 0) -gt 0 && $(stat -c %s "$RUN/f19/auto") -le $(stat -c %s "$RUN/f19/w.webp" 2>/dev/null || echo 0) ]] \
    || warn "[f19] the -f auto output is missing or larger than the WebP one"
  fig 19 "cold get as figure 1 with -f auto (default candidates: webp, jpeg)" "-f auto" "$(med f19 "get -f auto (cold)")" \
    "-f webp" "$(med f19 "get -f webp (cold)")" s 2.0 "<= 2.0 (2 candidates)"
fi

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

# ------------------------------------------------------------------ 3: peak RSS, 6000x4000
if want 3; then
  log "figure 3: peak RSS of a cold get of a 6000x4000 JPEG vs vipsthumbnail"
  mkdir -p "$RUN/f3"
  curl -sSf -o "$RUN/dl/big-00.jpg" "$URL6"
  CD3="$RUN/f3-cache"
  ga=(); va=(); gt=(); vt=()
  for ((k = 0; k < RSS3; k++)); do
    read -r kb s < <(rss_one "rm -rf $(q "$CD3")" "$BIN" get "$URL6" $TH -q 80 -o "$RUN/f3/get.jpg" --cache-dir "$CD3")
    ga+=("$kb"); gt+=("$s")
    read -r kb s < <(rss_one "true" vipsthumbnail "$RUN/dl/big-00.jpg" $TH -o "$RUN/f3/vt.jpg[Q=80]")
    va+=("$kb"); vt+=("$s")
  done
  fits "$RUN/f3/get.jpg" f3; fits "$RUN/f3/vt.jpg" f3
  A=$(mb "$(python3 "$HERE/report.py" median "${ga[@]}")"); B=$(mb "$(python3 "$HERE/report.py" median "${va[@]}")")
  printf '3\timgfetch get 6000x4000 (cold)\t%s\t%d\n3\tvipsthumbnail 6000x4000\t%s\t%d\n' "$A" "$RSS3" "$B" "$RSS3" >> "$RES/rss.tsv"
  fig 3 "peak RSS, cold get 6000x4000 JPEG -> 320x320 (median of $RSS3)" "imgfetch get" "$A" "vipsthumbnail" "$B" MB 1.2 "<= 1.2" \
    "wall $(secs "$(python3 "$HERE/report.py" median "${gt[@]}")") vs $(secs "$(python3 "$HERE/report.py" median "${vt[@]}")")"
fi

# ensure_cache_100k: $CD4, 100,000 valid entries (figures 4, 11, 12), generated once and kept
CD4="$BENCH_DIR/cache-100k"
# template_entry: TPL, the .meta of one real 64x48 entry (its image beside it), made once per run, so
# generated entries are valid (checksums match) and decodable (figures 11 and 11b prefetch them); "" on failure
TPL=""
template_entry() {
  if [[ -z "$TPL" ]] && "$BIN" get "$SMALL" -s 64 -o "$RUN/tpl.jpg" --no-keep-original --cache-dir "$RUN/tpl-cache" 2>/dev/null; then
    TPL=$(find "$RUN/tpl-cache/v1" -name '*.meta' | sed -n 1p)
  fi
}
ensure_cache_100k() {
  if ! grep -qs '^fake-cache v1 n=100000 ' "$CD4/STAMP"; then
    rm -rf "$CD4"
    template_entry
    echo "generating 100,000 cache entries in $CD4 (~20-40 s, kept for later runs)..." >&2
    python3 "$HERE/fake-cache.py" "$CD4" 100000 $TPL
  fi
}
# ensure_cache_1m: $CD1M, 1,000,000 valid entries of the template's 1,374-byte image (figures 11b, 12, 13;
# ~2M files, ~8 GB of 4 KB blocks), generated once (~1.5 min) and kept
CD1M="$BENCH_DIR/cache-1m"
ensure_cache_1m() {
  if ! grep -qs '^fake-cache v1 n=1000000 template=yes ' "$CD1M/STAMP"; then
    rm_tree "$CD1M"
    template_entry
    echo "generating 1,000,000 cache entries in $CD1M (~1.5 min: 2M small files; kept for later runs)..." >&2
    fake_cache_1m "$CD1M"
  fi
}
# fake_cache_1m DIR: 1,000,000 entries of the template's image in DIR (fake-cache.c's template mode)
fake_cache_1m() {
  template_entry
  [[ -n "$TPL" ]] || { warn "[1M] no template entry (imgfetch get $SMALL -s 64 failed): no 1M cache"; exit 1; }
  [[ -x "$RUN/fake-cache" ]] || cc -O2 -o "$RUN/fake-cache" "$HERE/fake-cache.c"
  "$RUN/fake-cache" "$1" 1000000 "${TPL%.meta}.jpg" "$(awk -F'\t' '$1 == "checksum" { print $2 }' "$TPL")" \
    "$(awk -F'\t' '$1 == "width" { print $2 }' "$TPL")" "$(awk -F'\t' '$1 == "height" { print $2 }' "$TPL")"
}
# rm_tree DIR: rm -rf, two processes at a time; LAST_RM: when a large tree was last removed (figure 11b)
LAST_RM=0
rm_tree() {
  [[ -e "$1" ]] || return 0
  find "$1" -mindepth 2 -maxdepth 2 -type d -print0 | xargs -0 -r -n 8 -P 2 rm -rf
  rm -rf "$1"
  LAST_RM=$(date +%s)
}

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

# ------------------------------------------------------------------ 5: all-hit prefetch of 10,000 files
if want 5; then
  log "figure 5: all-hit prefetch of 10,000 local files"
  D5="$BENCH_DIR/hits-10k"
  STAMP5="v1 bin=$(sha256sum "$BIN" | cut -c1-16) small=$(sha256sum "$SMALL" | cut -c1-16)"
  if [[ "$(cat "$D5/STAMP" 2>/dev/null)" != "$STAMP5" ]]; then
    rm -rf "$D5"; mkdir -p "$D5/files"
    python3 - "$SMALL" "$D5" <<'PY'
import os, sys
small, d = sys.argv[1], sys.argv[2]
with open(os.path.join(d, "list.txt"), "w") as f:
    for i in range(10000):
        p = os.path.join(d, "files", "img-%05d.jpg" % i)
        os.symlink(small, p)
        f.write(p + "\n")
PY
    echo "filling the 10,000-entry cache (~30 s, kept for later runs of this binary)..." >&2
  fi
  P5=("$BIN" prefetch "$D5/list.txt" -s 64 --cache-dir "$D5/cache" --no-progress)
  # fill (all misses the first time; all hits when reused), then a checked all-hit run
  "${P5[@]}" 2> "$RUN/f5-fill.err" || warn "[f5] filling prefetch failed: $(tail -1 "$RUN/f5-fill.err")"
  "${P5[@]}" --json > "$RUN/f5-check.json" 2>/dev/null || warn "[f5] checking prefetch failed"
  read -r tot ok failed hits < <(prefetch_summary "$RUN/f5-check.json")
  if [[ "$ok" == 10000 && "$hits" == 10000 ]]; then echo "$STAMP5" > "$D5/STAMP"
  else warn "[f5] all-hit check: total=$tot ok=$ok failed=$failed hits=$hits, expected 10000 hits"; fi
  hf f5 "$F5" none "imgfetch prefetch 10k (all hits)" \
    "$G prefetch $(q "$D5/list.txt") -s 64 --cache-dir $(q "$D5/cache") --no-progress" ""
  fig 5 "all-hit prefetch of 10,000 local files (-s 64), one process" "imgfetch prefetch" \
    "$(med f5 "imgfetch prefetch 10k (all hits)")" "limit" 1 s 1.0 "<= 1 s"
fi

# ------------------------------------------------------------------ 6 + 9: batch of 200 URLs
if want 6 || want 9; then
  log "figures 6 and 9: prefetch 200 URLs vs curl -Z + 2 vipsthumbnail; all-hit second run"
  CD6="$RUN/f6-cache"; CD6N="$RUN/f6-cache-nko"; CD9="$RUN/f9-cache"; DL6="$RUN/f6-dl"; TH6="$RUN/f6-th"
  PF="$G prefetch $(q "$URLS") $TH -q 80 --no-progress"
  # the all-hit run's cache, filled (and checked) before
  "$BIN" prefetch "$URLS" $TH -q 80 --no-progress --cache-dir "$CD9" 2> "$RUN/f9-fill.err" || warn "[f9] filling prefetch failed"
  "$BIN" prefetch "$URLS" $TH -q 80 --no-progress --cache-dir "$CD9" --json > "$RUN/f9-check.json" 2>/dev/null || warn "[f9] checking prefetch failed"
  read -r tot ok failed hits < <(prefetch_summary "$RUN/f9-check.json")
  [[ "$ok" == 200 && "$hits" == 200 ]] || warn "[f9] all-hit check: total=$tot ok=$ok failed=$failed hits=$hits, expected 200 hits"
  hf f6 "$F6" shell \
    "imgfetch prefetch 200 (cold)" "$PF --cache-dir $(q "$CD6")" "rm -rf $(q "$CD6")" \
    "imgfetch prefetch 200 --no-keep-original (cold)" "$PF --no-keep-original --cache-dir $(q "$CD6N")" "rm -rf $(q "$CD6N")" \
    "curl -Z 8 + 2 vipsthumbnail x 100" \
    "curl -sS -Z --parallel-max 8 --remote-name-all --output-dir $(q "$DL6") -K $(q "$URLCFG") && printf '%s\n' $(q "$DL6")/*.jpg | xargs -n 100 -P 2 vipsthumbnail $TH -o $(q "$TH6/%s.jpg[Q=80]")" \
    "rm -rf $(q "$DL6") $(q "$TH6") && mkdir -p $(q "$DL6") $(q "$TH6")" \
    "imgfetch prefetch 200 (all hits)" "$PF --cache-dir $(q "$CD9")" "true"
  check_cache "$CD6" 200 200 f6; check_cache "$CD6N" 200 0 f6; check_cache "$CD9" 200 200 f9
  count_files "$DL6" 200 f6; count_files "$TH6" 200 f6 fit
  COLD=$(med f6 "imgfetch prefetch 200 (cold)"); SHELLWAY=$(med f6 "curl -Z 8 + 2 vipsthumbnail x 100")
  if want 6; then
    R6=$(python3 -c 'import sys; a, b = sys.argv[1:]; print("moonshot <= 0.7 %s" % ("met" if float(a) / float(b) <= 0.7 else "not met"))' "$COLD" "$SHELLWAY" 2>/dev/null || echo -)
    fig 6 "prefetch 200 x 2000x1500 URLs -> 320x320 q80 (fresh cache)" "imgfetch prefetch" "$COLD" \
      "curl -Z 8 + 2 vipsthumbnail" "$SHELLWAY" s 0.8 "<= 0.8 (moonshot 0.7)" "$R6"
    fig 6b "same, prefetch --no-keep-original" "imgfetch prefetch" "$(med f6 "imgfetch prefetch 200 --no-keep-original (cold)")" \
      "curl -Z 8 + 2 vipsthumbnail" "$SHELLWAY" s 0.8 "<= 0.8 (moonshot 0.7)"
  fi
  if want 9; then
    fig 9 "prefetch 200 URLs again, all hits" "imgfetch prefetch (hits)" "$(med f6 "imgfetch prefetch 200 (all hits)")" \
      "imgfetch prefetch (cold)" "$COLD" s 0.1 "<= 0.1"
  fi
fi

# ------------------------------------------------------------------ 8: peak RSS of the batch prefetch
if want 8; then
  log "figure 8: peak RSS of the 200-URL prefetch"
  CD8="$RUN/f8-cache"; pa=(); pt=()
  for ((k = 0; k < RSS8; k++)); do
    read -r kb s < <(rss_one "rm -rf $(q "$CD8")" "$BIN" prefetch "$URLS" $TH -q 80 --no-progress --cache-dir "$CD8")
    pa+=("$kb"); pt+=("$s")
  done
  check_cache "$CD8" 200 200 f8
  A=$(mb "$(python3 "$HERE/report.py" median "${pa[@]}")")
  printf '8\timgfetch prefetch 200 (cold)\t%s\t%d\n' "$A" "$RSS8" >> "$RES/rss.tsv"
  fig 8 "peak RSS of prefetch 200 URLs (median of $RSS8)" "imgfetch prefetch" "$A" "limit" 150 MB 1.0 "<= 150 MB" \
    "wall $(secs "$(python3 "$HERE/report.py" median "${pt[@]}")")"
fi

# ------------------------------------------------------------------ 7: one process per URL, 50 URLs
if want 7; then
  log "figure 7: 50 x get in a shell loop vs 50 x curl | vipsthumbnail stdin"
  O7A="$RUN/f7-get"; O7B="$RUN/f7-pipe"; CD7="$RUN/f7-cache"
  # vipsthumbnail reads stdin since 8.9 (checked: works with $(vips --version))
  curl -sSf "$URL1" | vipsthumbnail stdin $TH -o "$RUN/f7-probe.jpg[Q=80]" 2>/dev/null && [[ -s "$RUN/f7-probe.jpg" ]] \
    || warn "[f7] 'vipsthumbnail stdin' did not work with $(vips --version); the pipe figure is not valid"
  hf f7 "$F7" shell \
    "imgfetch get x 50 (loop)" "$(q "$HERE/loop.sh") imgfetch $G $(q "$URLS50") $(q "$O7A") $(q "$CD7")" \
    "rm -rf $(q "$O7A") $(q "$CD7") && mkdir -p $(q "$O7A")" \
    "curl | vipsthumbnail stdin x 50 (loop)" "$(q "$HERE/loop.sh") pipe $(q "$URLS50") $(q "$O7B")" \
    "rm -rf $(q "$O7B") && mkdir -p $(q "$O7B")"
  count_files "$O7A" 50 f7 fit; count_files "$O7B" 50 f7 fit
  fig 7 "50 URLs, one process per URL in a shell loop" "imgfetch get loop" "$(med f7 "imgfetch get x 50 (loop)")" \
    "curl | vipsthumbnail stdin" "$(med f7 "curl | vipsthumbnail stdin x 50 (loop)")" s 0.5 "<= 0.5"
fi

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

# ------------------------------------------------------------------ 11: store into a full cache vs an empty one
# M distinct local files (hard links to one image of the cache's own entries, so new entries are the
# size of the old ones) prefetched as they are (stored, no processing) into (a) an empty cache and
# (b) a copy of the 100,000-entry cache sitting exactly at the same --cache-size-limit. M is one
# eviction cycle: the first store into the full cache trims it to the 80% low-water mark (a scan of
# every entry and ~20,000 removals), the other M-1 fit, so (b) / (a) is the amortised cost of a
# store into a full cache. One run each (a cycle is ~20,000 stores).
if want 11; then
  log "figure 11: store cost, full cache of 100,000 entries vs empty"
  ensure_cache_100k
  D11="$RUN/f11"; mkdir -p "$D11/src"
  read -r N11 L11 < <(python3 "$HERE/report.py" footprint "$CD4")
  SRC11=$(find "$CD4/v1/00" -name '*.jpg' -print -quit)
  S11=$(stat -c %s "$SRC11")
  M11=$(( (L11 - L11 * 8 / 10) / (S11 + 512) - 10 ))
  for ((i = 0; i < M11; i++)); do ln "$SRC11" "$D11/src/f$i.jpg"; done
  ( cd "$D11/src" && ls | sed "s|^|$D11/src/|" ) > "$D11/list.txt"
  P11="prefetch $(q "$D11/list.txt") --cache-size-limit $L11 --no-progress --quiet"
  hf f11 "1 1 0" shell \
    "store into an empty cache" "$G $P11 --cache-dir $(q "$D11/empty")" "rm -rf $(q "$D11/empty")" \
    "store into a full cache (100k)" "$G $P11 --cache-dir $(q "$D11/full")" \
      "rm -rf $(q "$D11/full") && cp -al $(q "$CD4") $(q "$D11/full") && rm -f $(q "$D11/full/v1/usage")"
  read -r n11 b11 < <(python3 "$HERE/report.py" footprint "$D11/full")
  [[ "$b11" -le "$L11" ]] || warn "[f11] the full cache ended at $b11 bytes, over its limit $L11"
  fig 11 "$M11 stores (one eviction cycle) into a full cache of $N11 entries vs an empty one" \
    "full cache" "$(med f11 "store into a full cache (100k)")" "empty cache" "$(med f11 "store into an empty cache")" s 2.0 "<= 2.0" \
    "limit $L11 bytes; the full cache ends with $n11 entries"
  rm -rf "$D11"; LAST_RM=$(date +%s)
fi

# ------------------------------------------------------------------ 17: no store stalls on a full cache
# 40 `get FILE -o /dev/null` in a loop (one process each, distinct local copies of the template's
# image, stored as they are) into a copy of a 30,000-entry cache sitting at its --cache-size-limit
# (its usage total present, as in a cache in use), then the same at 100,000 entries, against 40 into
# an empty cache: every store into the full cache evicts. The slowest and the 95th-percentile store
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
    # excess (not timed against the others), each later one about its own footprint.
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
def runs(name):
    try:
        return sorted(float(x) for x in open("%s/%s.txt" % (d, name)).read().split())
    except (OSError, ValueError):
        return []
def p95(v):
    return v[max(0, -(-len(v) * 95 // 100) - 1)] if v else float("nan")
e, f30, f100 = runs("empty"), runs("full30")[1:], runs("full100")[1:]   # after the first, which deletes the excess
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

# ------------------------------------------------------------------ 13: cache prune --max-size of 1,000,000 entries
# A copy (hard links) of the 1,000,000-entry cache pruned to half its size, against a stat of every file
# (find -printf), the least any size-based pruning does; peak RSS.
if want 13; then
  log "figure 13: cache prune --max-size of 1,000,000 entries"
  ensure_cache_1m
  D13="$RUN/f13"
  read -r _ L13 < <(python3 "$HERE/report.py" footprint "$CD1M")
  rm -rf "$D13"; cp -al "$CD1M" "$D13"; rm -f "$D13/v1/usage"
  t0=$(date +%s.%N); find "$D13/v1" -type f -printf '%s %T@\n' > /dev/null; tf=$(python3 -c 'import sys; print(float(sys.argv[2]) - float(sys.argv[1]))' "$t0" "$(date +%s.%N)")
  read -r k13 t13 < <(rss_one true "$BIN" cache prune --max-size $(( L13 / 2 )) --cache-dir "$D13")
  read -r n13 b13 < <(python3 "$HERE/report.py" footprint "$D13")
  [[ "$b13" -le $(( L13 / 2 )) ]] || warn "[f13] the pruned cache holds $b13 bytes, over $(( L13 / 2 ))"
  printf '13\timgfetch cache prune --max-size (1M)\t%s\t1\n' "$(mb "$k13")" >> "$RES/rss.tsv"
  fig 13 "cache prune --max-size half of 1,000,000 entries vs find -printf (stat of every file)" "imgfetch cache prune" "$t13" \
    "find -printf" "$tf" s 5.0 "<= 5.0" "peak RSS $(mb "$k13") MB; $n13 entries left"
  rm -rf "$D13"

fi

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

# ------------------------------------------------------------------ 20: a resumed download
# The test server (Tests/Support/e2e_server.py) trickles an 8 MB JPEG (photo.jpg padded with comment
# segments) at 2 MB/s (4000 bytes every 2 ms) and honours Range/If-Range. A first get is cut by
# --timeout 2 (about half the body kept in v1/partial/); the second get asks for the rest. It is
# timed and its downloaded bytes counted against an uninterrupted get of the same body.
if want 20; then
  log "figure 20: a resumed 8 MB download at 2 MB/s vs an uninterrupted one"
  D20="$RUN/f20"; mkdir -p "$D20"; mkfifo "$D20/stdin"
  python3 "$(dirname "$HERE")/../Tests/Support/e2e_server.py" "$(dirname "$HERE")/../Tests/Fixtures" < "$D20/stdin" > "$D20/port" & S20=$!
  exec 8> "$D20/stdin"   # the server ends when this closes
  for _ in $(seq 50); do [[ -s "$D20/port" ]] && break; sleep 0.1; done
  U20="http://127.0.0.1:$(head -1 "$D20/port")/img/photo.jpg?pad=8000000&trickle=2"
  timed_get() {   # timed_get CACHE ARGS... -> "SECONDS DOWNLOADED_BYTES"
    local cache=$1; shift
    python3 - "$BIN" "$cache" "$@" <<'PY'
import json, subprocess, sys, time
t = time.monotonic()
r = subprocess.run([sys.argv[1], "get", "--cache-dir", sys.argv[2], "--json", "-o", "/dev/null"] + sys.argv[3:],
                   capture_output=True, text=True)
elapsed = time.monotonic() - t
record = json.loads(r.stdout.splitlines()[0]) if r.stdout else {}
print("%.3f %s" % (elapsed, record.get("downloaded_bytes", "NA") if r.returncode == 0 else "NA"))
PY
  }
  read -r plain_s plain_b < <(timed_get "$D20/plain" "$U20&v=plain")
  timed_get "$D20/resumed" "$U20" --timeout 2 > /dev/null || true
  parts=$(find "$D20/resumed/v1/partial" -name '*.part' 2>/dev/null | wc -l)
  [[ "$parts" == 1 ]] || warn "[f20] the first get kept $parts partial downloads, expected 1"
  read -r resumed_s resumed_b < <(timed_get "$D20/resumed" "$U20")
  [[ "$resumed_b" != NA && "$plain_b" != NA ]] || warn "[f20] a get failed (plain $plain_b bytes, resumed $resumed_b bytes)"
  exec 8>&-; wait "$S20" 2>/dev/null || true
  fig 20 "resumed get of 8 MB at 2 MB/s after --timeout 2 (bytes: $resumed_b vs $plain_b)" "resumed get" "$resumed_s" \
    "uninterrupted get" "$plain_s" s 0.6 "<= 0.6"
fi

# ------------------------------------------------------------------ fidelity
if want 14; then
  log "figure 14: fidelity vs a float Lanczos3 reference and vipsthumbnail"
  FID="$RUN/fidelity"; mkdir -p "$FID"
  FIX="$(dirname "$HERE")/../Tests/Fixtures"
  for f in photo portrait progressive detail icc-adobe icc-prophoto grey-profile; do ln -sf "$(realpath "$FIX/$f.jpg")" "$FID/"; done
  find /usr/share/backgrounds -maxdepth 2 -type f \( -name '*.jpg' -o -name '*.webp' -o -name '*.png' \) 2>/dev/null | sort | head -8 \
    | while read -r f; do ln -sf "$f" "$FID/bg-$(basename "$f")"; done
  ls "$CORPUS/jpg" 2>/dev/null | head -3 | while read -r f; do ln -sf "$CORPUS/jpg/$f" "$FID/corpus-$f"; done
  /usr/bin/python3 "$(dirname "$HERE")/fidelity.py" report "$BIN" "$FID" > "$RES/fidelity.json" \
    || warn "[f14] scripts/fidelity.py report failed"
fi

# ------------------------------------------------------------------ report
echo "loadavg at end: $(cat /proc/loadavg); total $(( $(date +%s) - T0 )) s" >> "$RES/env.txt"
log "done"
python3 "$HERE/report.py" table "$RES" | tee "$RES/table.md"
if [[ -s "$RES/fidelity.json" ]]; then
  echo; /usr/bin/python3 "$(dirname "$HERE")/fidelity.py" text "$RES/fidelity.json" | tee -a "$RES/table.md"
fi
echo
cat "$RES/env.txt"
echo "results in $RES" >&2
rm -rf "$RUN"
