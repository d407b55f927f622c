#!/usr/bin/env bash
# fig-23-shard-rerun.sh BIN: figure 23 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=23 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=23 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 23: rerun of 64 finished shards
# The list: 1,000,000 lines, 1,000 distinct URLs (the corpus's ~20 KB JPEG under nginx's /logged/,
# `?n=0..999`, each its own cache entry), each 1,000 times (56 MB). Set-up, not timed, kept for later
# runs: its 64 shards run once (`--shard K/64 --shard-dir`, -s 64, two at a time), each leaving its
# marker (checked: 64 markers, every line ok). Timed: the 64 reruns one after another (one shell loop
# a run), each of which must find its marker and exit at once; beside it, 64 x sha256sum of the list
# (each rerun digests the whole list). Checked after: every rerun exits 0 saying `shard K/64 already
# done`, and nginx's access log has no line more than before the timed runs (no request).
if want 23; then
  log "figure 23: rerun of a finished 1,000,000-line list in 64 shards"
  T23="rerun of a finished 1,000,000-line list in 64 shards (markers only)"
  if [[ $HAVE_NGINX != 1 ]]; then
    fig 23 "$T23" "64 x prefetch --shard K/64" NA "limit" 10 s 1.0 "<= 10 s" "SKIP: no nginx (its access log counts the requests)"
  else
    # The set-up is kept under $BENCH_DIR (each first run reads the whole list: 35 min on 2 busy cores) and
    # made again when the list differs (another port) or a marker is missing.
    D23="$BENCH_DIR/shards-1m"; L23="$D23/list.txt"; ALOG="$NGINX_STATE/access.log"
    python3 -c 'import sys; u = sys.argv[1]; sys.stdout.write("".join("%s?n=%d\n" % (u, i % 1000) for i in range(1000000)))' \
      "$BASE/logged/small/thumb-20k.jpg" > "$RUN/f23-list.txt"
    S23="-s 64 --no-progress --shard-dir $(q "$D23/shards") --cache-dir $(q "$D23/cache")"
    requests() { if [[ -f "$ALOG" ]]; then wc -l < "$ALOG"; else echo 0; fi; }
    markers23() {   # "MARKERS LINES OK" of the shard directory
      python3 - "$D23/shards" <<'PY'
import glob, json, sys
stats = [json.load(open(p)) for p in glob.glob(sys.argv[1] + "/*-of-00064.stats.json")]
print(len(stats), sum(s.get("total", 0) for s in stats), sum(s.get("ok", 0) for s in stats))
PY
    }
    r0=$(requests)
    if cmp -s "$RUN/f23-list.txt" "$L23" && [[ "$(markers23)" == "64 1000000 1000000" ]]; then
      setup="set-up reused ($D23)"
    else
      rm -rf "$D23"; mkdir -p "$D23"; mv "$RUN/f23-list.txt" "$L23"
      echo "running the 64 shards once in $D23 (~35 min on 2 busy cores; kept for later runs)..." >&2
      t0=$(date +%s)
      seq 1 64 | xargs -P 2 -I{} sh -c "$G prefetch $(q "$L23") $S23 --shard {}/64 2>> $(q "$D23/setup.err")" \
        || warn "[f23] a set-up shard failed ($(grep -v '^$' "$D23/setup.err" | tail -1))"
      setup="set-up $(( $(date +%s) - t0 )) s, $(( $(requests) - r0 )) requests"
    fi
    r1=$(requests)
    read -r markers lines ok < <(markers23)
    [[ "$markers" == 64 && "$lines" == 1000000 && "$ok" == 1000000 ]] \
      || warn "[f23] the set-up left $markers markers for $lines lines, $ok ok (expected 64, 1000000, 1000000)"
    LOOP="for k in \$(seq 1 64); do $G prefetch $(q "$L23") $S23 --shard \$k/64 || exit 1; done"
    hf f23 "$F23" shell \
      "64 x prefetch --shard K/64 (all done)" "$LOOP" "true" \
      "64 x sha256sum LIST" "for k in \$(seq 1 64); do sha256sum $(q "$L23") > /dev/null; done" "true"
    done23=0
    for k in $(seq 1 64); do
      if "$BIN" prefetch "$L23" $S23 --shard "$k/64" 2> "$RUN/f23-rerun.err" && grep -q "shard $k/64 already done (" "$RUN/f23-rerun.err"; then
        done23=$((done23 + 1))
      fi
    done
    [[ $done23 == 64 ]] || warn "[f23] $done23 of 64 reruns exited 0 saying 'shard K/64 already done' ($(head -1 "$RUN/f23-rerun.err"))"
    r2=$(requests)
    [[ $r2 == "$r1" ]] || warn "[f23] the reruns sent $((r2 - r1)) requests (nginx's access log), expected 0"
    rerun=$(med f23 "64 x prefetch --shard K/64 (all done)"); hash=$(med f23 "64 x sha256sum LIST")
    note=$(python3 -c 'import sys; r, h = (float(v) if v != "NA" else None for v in sys.argv[1:3]); mb = int(sys.argv[3]) / 1e6
print("%s a shard; 64 x sha256sum of the %.0f MB list %s" % ("%.1f ms" % (r / 64 * 1000) if r else "n/a", mb, "%.2f s" % h if h else "n/a"))' \
      "$rerun" "$hash" "$(stat -c %s "$L23")")
    fig 23 "$T23" "64 x prefetch --shard K/64" "$rerun" "limit" 10 s 1.0 "<= 10 s" \
      "$note; $setup; the reruns $((r2 - r1)) requests"
  fi
fi
