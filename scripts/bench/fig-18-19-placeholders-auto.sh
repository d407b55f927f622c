#!/usr/bin/env bash
# fig-18-19-placeholders-auto.sh BIN: figures 18 and 19 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=18,19 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=18,19 exec "$(dirname "$0")/../bench.sh" "$@"

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
