#!/usr/bin/env bash
# fig-5-all-hit-prefetch.sh BIN: figure 5 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=5 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=5 exec "$(dirname "$0")/../bench.sh" "$@"

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
