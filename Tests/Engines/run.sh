#!/usr/bin/env bash
# make engines-test: the README's engine recipes (the blocks marked "<!-- engines-test: NAME -->"), run
# as written on this machine with the binary under test, against the test server on 127.0.0.1
# (Tests/Support/e2e_server.py, whose request log says what each engine fetched):
#   1. Slurm: a one-node cluster of its own (Tests/Engines/slurm-cluster.sh) runs the array of 4 tasks:
#      every line requested once, one record each, 4 markers; the same array again sends nothing. Then a
#      slower list: one task is cancelled (scancel) mid-run, the array submitted again: only that
#      shard's unfinished lines are fetched again, and every line has its one record.
#   2. Spark (spark-submit --master local[2]): RDD.pipe through imgfetch prefetch -, records parsed by
#      Spark's JSON reader and written by it; one line of the list fails (HTTP 404) without failing
#      the job; the cache is the one the script names (pipe's child has an empty environment).
#   3. GNU parallel --pipepart over one list: every line once, in 4 jobs.
# Each step has a time limit; the daemons and the server are stopped on any exit. Jobs and engines talk
# only to 127.0.0.1. On a failure the work directory is kept (its path is printed) with the logs.
# Usage: Tests/Engines/run.sh [IMGFETCH_BINARY]
set -euo pipefail
BIN=$(realpath "${1:-.build/release/imgfetch}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
README=$ROOT/README.md
checks() { python3 "$ROOT/Tests/Engines/checks.py" "$@"; }
for tool in munged slurmctld slurmd sbatch squeue scancel scontrol sinfo spark-submit java parallel python3; do
  command -v "$tool" >/dev/null || { echo "engines-test: $tool is needed (scripts/install-deps.sh installs it)" >&2; exit 2; }
done
[[ -x "$BIN" ]] || { echo "engines-test: no binary at $BIN (make build)" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/imgfetch-engines.XXXXXX")
source "$ROOT/Tests/Engines/slurm-cluster.sh"
cleanup() {
  local status=$?
  slurm_stop
  exec 3>&-   # the test server exits when its stdin closes
  if [[ $status -eq 0 ]]; then rm -rf "$WORK"; else echo "engines-test: FAILED; logs in $WORK" >&2; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Only what this script sets: no cache, config or remote tier of the caller's, no Slurm job of theirs.
while read -r name; do unset "$name"; done < <(compgen -e | grep -E '^(IMGFETCH_|SLURM_|XDG_|SPARK_|PYSPARK_)' || true)
mkdir -p "$WORK/bin"
ln -s "$BIN" "$WORK/bin/imgfetch"
export PATH="$WORK/bin:$PATH"

exec 3> >(python3 "$ROOT/Tests/Support/e2e_server.py" "$ROOT/Tests/Fixtures" > "$WORK/origin-port")
for _ in $(seq 100); do [[ -s "$WORK/origin-port" ]] && break; sleep 0.1; done
ORIGIN="http://127.0.0.1:$(head -1 "$WORK/origin-port")"
reset_log() { python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/__reset", timeout=30).read()' "$ORIGIN"; }
requests() { python3 -c 'import json, sys, urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1] + "/__stats", timeout=30))["total"])' "$ORIGIN"; }

# make_list FILE N ROUTE TAG: N lines of the test server, each its own URL (fixtures in turn).
make_list() {
  local fixtures=(photo.jpg portrait.jpg small.webp tiny.jpg alpha.png) i
  for i in $(seq "$2"); do
    if [[ $3 == /slow/ ]]; then echo "$ORIGIN/slow/tiny.jpg?seconds=1&v=$4$i"; else echo "$ORIGIN/img/${fixtures[i % 5]}?v=$4$i"; fi
  done > "$1"
}

# --- 1. Slurm ---------------------------------------------------------------------------------------
SUBMIT=$(checks block "$README" slurm-submit)
# submit DIR: the README's sbatch line in DIR, its own HOME (so the tasks' default cache); the job id.
submit() {
  local out
  out=$(cd "$1" && HOME="$1/home" timeout 30 bash -euc "$SUBMIT")
  [[ $out =~ ^Submitted\ batch\ job\ ([0-9]+)$ ]] || { echo "engines-test: sbatch said: $out" >&2; return 1; }
  echo "${BASH_REMATCH[1]}"
}
# wait_job ID SECONDS: until no task of the array is pending or running.
wait_job() {
  local deadline=$((SECONDS + $2))
  while [[ -n "$(squeue -h -j "$1" 2>/dev/null)" ]]; do
    ((SECONDS < deadline)) || { echo "engines-test: job $1 still running after $2 s" >&2; squeue >&2; return 1; }
    sleep 0.5
  done
}
# states ID: "TASK STATE EXITCODE" per task of the array, in task order.
states() { scontrol -o show job "$1" | sed -E 's/.*ArrayTaskId=([0-9]+) .*JobState=([A-Z_]+) .* ExitCode=([0-9:]+).*/\1 \2 \3/' | sort -n; }
expect_states() {
  local got
  got=$(states "$1" | tr '\n' ' ')
  [[ "$got" == "$2" ]] || { echo "engines-test: FAILED: job $1's tasks: $got, expected $2" >&2; return 1; }
}
markers() { (cd "$1/shards" && ls -- *.stats.json 2>/dev/null | tr '\n' ' '); }
DONE="1 COMPLETED 0:0 2 COMPLETED 0:0 3 COMPLETED 0:0 4 COMPLETED 0:0 "
ALL4="00001-of-00004.stats.json 00002-of-00004.stats.json 00003-of-00004.stats.json 00004-of-00004.stats.json "

echo "engines-test: Slurm: a one-node cluster on 127.0.0.1 (private SLURM_CONF, munged)"
t0=$SECONDS
slurm_start "$WORK/slurm"
A=$WORK/slurm-array
mkdir -p "$A/home"
checks block "$README" slurm-script > "$A/prefetch-shards.sh"
make_list "$A/urls.txt" 200 /img/ a
reset_log
echo "engines-test: \$ $SUBMIT   # 200 lines"
job=$(submit "$A")
wait_job "$job" 120
expect_states "$job" "$DONE"
[[ "$(markers "$A")" == "$ALL4" ]] || { echo "engines-test: FAILED: markers: $(markers "$A")" >&2; exit 1; }
checks log "$ORIGIN" "$WORK/slurm-array.log"
checks once "$A/urls.txt" "$WORK/slurm-array.log" "$A"/shards/*.ndjson
reset_log
echo "engines-test: \$ $SUBMIT   # again"
job=$(submit "$A")
wait_job "$job" 60
expect_states "$job" "$DONE"
[[ "$(requests)" == 0 ]] || { echo "engines-test: FAILED: the second array sent $(requests) requests" >&2; exit 1; }
for k in 1 2 3 4; do
  grep -q "shard $k/4 already done" "$A/shard-$k.log" || { echo "engines-test: FAILED: shard-$k.log: $(cat "$A/shard-$k.log")" >&2; exit 1; }
done
echo "engines-test: the array again: 4 tasks, each 'already done', 0 requests"

# A task cancelled mid-run: each request takes 1 s, 8 at once, so each shard of ~50 lines takes ~7 s.
B=$WORK/slurm-cancel
mkdir -p "$B/home"
cp "$A/prefetch-shards.sh" "$B/"
make_list "$B/urls.txt" 200 /slow/ b
# Shard 2's lines, as imgfetch itself splits the list (offline: no request, every line not_cached).
imgfetch prefetch "$B/urls.txt" --shard 2/4 --offline --json --cache-dir "$WORK/empty-cache" \
  > "$WORK/shard-2-lines.ndjson" 2> "$WORK/shard-2-lines.err" || true
reset_log
echo "engines-test: \$ $SUBMIT   # 200 slow lines; then scancel of task 2"
job=$(submit "$B")
deadline=$((SECONDS + 60))
while read -r answered asked total < <(checks progress "$ORIGIN" "$WORK/shard-2-lines.ndjson"); ((answered < 8)); do
  ((SECONDS < deadline)) || { echo "engines-test: FAILED: shard 2 answered $answered of $total after 60 s" >&2; exit 1; }
  sleep 0.2
done
sleep 1.5   # the first 8 answered (and stored) more than 1 s before the cancel
read -r answered asked total < <(checks progress "$ORIGIN" "$WORK/shard-2-lines.ndjson")
killed_at=$(date +%s.%N)
scancel "${job}_2"
echo "engines-test: scancel ${job}_2 when the server had answered $answered of its $total lines (asked $asked)"
((asked < total)) || { echo "engines-test: FAILED: shard 2 had asked for all its lines before the cancel" >&2; exit 1; }
wait_job "$job" 120
expect_states "$job" "1 COMPLETED 0:0 2 CANCELLED 0:15 3 COMPLETED 0:0 4 COMPLETED 0:0 "
[[ "$(markers "$B")" == "00001-of-00004.stats.json 00003-of-00004.stats.json 00004-of-00004.stats.json " ]] \
  || { echo "engines-test: FAILED: markers after the cancel: $(markers "$B")" >&2; exit 1; }
[[ ! -e "$B/shards/00002-of-00004.ndjson" ]] || { echo "engines-test: FAILED: the cancelled shard left its records" >&2; exit 1; }
checks log "$ORIGIN" "$WORK/slurm-cancel-before.log"
echo "engines-test: \$ $SUBMIT   # again"
job=$(submit "$B")
wait_job "$job" 120
expect_states "$job" "$DONE"
[[ "$(markers "$B")" == "$ALL4" ]] || { echo "engines-test: FAILED: markers: $(markers "$B")" >&2; exit 1; }
checks log "$ORIGIN" "$WORK/slurm-cancel-after.log"
checks resumed "$B/urls.txt" "$WORK/slurm-cancel-before.log" "$WORK/slurm-cancel-after.log" "$killed_at" 1 "$B/shards/00002-of-00004.ndjson"
checks records "$B/urls.txt" "$B"/shards/*.ndjson
slurm_stop
echo "engines-test: Slurm: ok in $((SECONDS - t0)) s"

# --- 2. Spark ---------------------------------------------------------------------------------------
S=$WORK/spark
mkdir -p "$S/home" "$S/conf"
checks block "$README" spark-script > "$S/prefetch_spark.py"
make_list "$S/urls.txt" 40 /img/ s
echo "$ORIGIN/status/404?v=s-missing" >> "$S/urls.txt"
# Spark binds and names 127.0.0.1 only, and shows no web UI.
printf '%s\n' "spark.ui.enabled false" "spark.driver.host 127.0.0.1" "spark.driver.bindAddress 127.0.0.1" > "$S/conf/spark-defaults.conf"
reset_log
t0=$SECONDS
SPARK=$(checks block "$README" spark-submit)
echo "engines-test: \$ $SPARK   # 41 lines, one a 404"
(cd "$S" && HOME="$S/home" IMGFETCH_CACHE_DIR="$S/cache" SPARK_CONF_DIR="$S/conf" SPARK_LOCAL_IP=127.0.0.1 \
  SPARK_LOCAL_DIRS="$S/local" timeout 300 bash -euc "$SPARK" > "$S/spark.out" 2> "$S/spark.log") \
  || { echo "engines-test: FAILED: spark-submit exited $?: $(grep -m5 -E 'Error|Exception' "$S/spark.log")" >&2; exit 1; }
checks log "$ORIGIN" "$WORK/spark.log"
checks once "$S/urls.txt" "$WORK/spark.log" "$S"/records/part-*.json
grep -qE '^\|\s*ok\|\s*40\|$' "$S/spark.out" && grep -qE '^\|\s*failed\|\s*1\|$' "$S/spark.out" \
  || { echo "engines-test: FAILED: the script's counts:" >&2; cat "$S/spark.out" >&2; exit 1; }
entries=$(imgfetch --cache-dir "$S/cache" cache ls --json | grep -c '"key"' || true)
[[ "$entries" -ge 40 && ! -e "$S/home/.cache" ]] \
  || { echo "engines-test: FAILED: $entries entries in the script's cache dir; \$HOME/.cache: $(ls -a "$S/home")" >&2; exit 1; }
echo "engines-test: Spark: the counts it printed (ok 40, failed 1); $entries entries in the cache the script named"
echo "engines-test: Spark: ok in $((SECONDS - t0)) s"

# --- 3. GNU parallel --pipepart ---------------------------------------------------------------------
P=$WORK/parallel
mkdir -p "$P/home"
make_list "$P/urls.txt" 400 /img/ p
reset_log
t0=$SECONDS
PARALLEL=$(checks block "$README" parallel)
echo "engines-test: \$ $PARALLEL   # 400 lines"
(cd "$P" && HOME="$P/home" timeout 180 bash -euc "$PARALLEL")
checks log "$ORIGIN" "$WORK/parallel.log"
checks once "$P/urls.txt" "$WORK/parallel.log" "$P/records.ndjson"
jobs=$(grep -c '"summary":true' "$P/records.ndjson" || true)
[[ "$jobs" == 4 ]] || { echo "engines-test: FAILED: $jobs summary records, expected 4 (one per job)" >&2; exit 1; }
echo "engines-test: GNU parallel: ok in $((SECONDS - t0)) s (4 jobs, one summary record each)"
echo "engines-test: ok: the Slurm, Spark and GNU parallel recipes of the README"
