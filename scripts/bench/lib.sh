# scripts/bench/lib.sh: sourced by scripts/bench.sh after setup.sh (not run alone): the helpers every
# figure uses (hf, med, fig, rss_one, the checks) and the generated caches several share.

# ------------------------------------------------------------------ helpers
# hf ID "ROUNDS RUNS WARMUP" shell|none  LABEL CMD PREPARE [LABEL CMD PREPARE ...]
#   Runs hyperfine ROUNDS times with RUNS runs of every command (the command order is reversed every
#   other round, so a burst of load from another process hits both sides); WARMUP runs in the first
#   round only. With `none` (hyperfine -N) PREPARE must be empty. Failed runs (exit != 0) are kept out of
#   the medians and reported. Result: $RES/ID.tsv (name, median, min, max, runs, failed).
#   With BASELINE_BIN, every command that runs imgfetch ($G) gets a twin that runs the baseline ($GB)
#   instead, labelled "LABEL (baseline)", with the same PREPARE, in the same rounds.
hf() {
  local id=$1 mode=$3 rounds runs warm r i w
  read -r rounds runs warm <<< "$2"
  shift 3
  local labels=() cmds=() preps=()
  while (($#)); do
    labels+=("$1"); cmds+=("$2"); preps+=("${3:-true}")
    if [[ -n "$GB" && "$2" == *"$G"* ]]; then labels+=("$1 (baseline)"); cmds+=("${2//"$G"/"$GB"}"); preps+=("${3:-true}"); fi
    shift 3
  done
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
# cpu_med ID LABEL: the median over ID's rounds of LABEL's mean user + system CPU seconds (hyperfine's:
# the command's whole process tree, every child it waited for), NA when there is none
cpu_med() {
  python3 - "$RES" "$1" "$2" <<'PY'
import glob, json, statistics, sys
res, fid, label = sys.argv[1:]
cpu = [r["user"] + r["system"] for f in sorted(glob.glob("%s/%s.r*.json" % (res, fid)))
       for r in json.load(open(f))["results"] if r["command"] == label]
print("%.4f" % statistics.median(cpu) if cpu else "NA")
PY
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
# rss_baseline FIG LABEL KB SECONDS PREPARE ARGS...: with BASELINE_BIN, the baseline's peak RSS of the
# run just measured (KB SECONDS: the new binary's; ARGS: the command without its binary), appended to
# $RES/rss-baseline.tsv as "FIG LABEL NEW_KB BASELINE_KB NEW_S BASELINE_S"
rss_baseline() {
  [[ -n "$BASELINE" ]] || return 0
  local f=$1 l=$2 nkb=$3 ns=$4 p=$5 kb s; shift 5
  read -r kb s < <(rss_one "$p" "$BASELINE" "$@")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$l" "$nkb" "$kb" "$ns" "$s" >> "$RES/rss-baseline.tsv"
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
GB=""; [[ -n "$BASELINE" ]] && GB="$(q "$BASELINE")"
TH='-s 320x320'

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
