#!/usr/bin/env bash
# bench-instructions.sh BIN -- instruction counts (valgrind --tool=callgrind) of imgfetch's paths beside
# reference programs, as ratios. Counts are the same run after run whatever the load (the wall-clock
# figures of `make bench` are not), so this is the figure to optimise against.
#
#   hit        `get FILE -s 320x320 -o out.jpg`, the entry cached      vs a static Swift hello        <= 1.5
#   cold file  the same `get` into an empty cache                      vs djpeg -scale 1/D (same DCT) <= 1.4
#   cold http  the same `get` of the URL from the bench's nginx        vs djpeg -scale 1/D
#   prefetch   a LINES-line prefetch of URLs (-s 320x320), per image   vs djpeg -scale 1/D            <= 1.2
#   also: vipsthumbnail FILE -s 320x320 (the cold get's reference in `make bench`)
#   and the cold get and the prefetch again with the SHA-256 at the count of the SHA extensions, which
#   valgrind cannot run (computed from the disassembly: see below)
# Then issue 44's table of formats (scripts/bench/instructions-formats.sh: every source and output format
# against vipsthumbnail, with the floors of the PNG and WebP rows), in OUT/formats.md.
# D is the DCT scale imgfetch decodes the corpus at (jpeg_fast.c: the shrink to the box, leaving the
# resize at least 2x: 2000x1500 -> 320x320 decodes at 1/2).
# Env: BENCH_DIR=/tmp/imgfetch-bench (its corpus is shared with scripts/bench.sh) BENCH_PORT=18095
#      LINES=200 (the prefetch's lines; ~5 min under callgrind)  OUT=.build/instructions (results)
# Output: the tables on stdout and in OUT/table.md and OUT/formats.md; OUT/<path>.top.txt, the top 10 inclusive costs of each
# path (callgrind_annotate), beside OUT/<path>.callgrind.
set -euo pipefail

BIN=$(realpath "${1:?usage: scripts/bench-instructions.sh PATH/TO/imgfetch}")
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/imgfetch-bench}
PORT=${BENCH_PORT:-18095}
LINES=${LINES:-200}
OUT=$(mkdir -p "${OUT:-.build/instructions}" && realpath "${OUT:-.build/instructions}")
for t in valgrind callgrind_annotate djpeg vipsthumbnail swiftc curl; do
  command -v "$t" >/dev/null || { echo "bench-instructions: $t missing (BENCH_DEPS=1 scripts/install-deps.sh)" >&2; exit 1; }
done
export LC_ALL=C VIPS_CONCURRENCY=${VIPS_CONCURRENCY:-2}
"$HERE/bench/make-corpus.sh" "$BENCH_DIR/corpus" >&2
CORPUS="$BENCH_DIR/corpus"
FILE="$CORPUS/jpg/img-000.jpg"
SCRATCH="$OUT/scratch"
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH/home"
STATE="$SCRATCH/nginx"
"$HERE/bench/nginx.sh" start "$STATE" "$CORPUS" "$PORT" >&2
# nginx is stopped before the scratch directory (its pid file) goes.
trap '"$HERE/bench/nginx.sh" stop "$STATE" "$CORPUS" "$PORT" >&2 || true; rm -rf "$SCRATCH"' EXIT
URL="http://127.0.0.1:$PORT/jpg/img-000.jpg"
for i in $(seq 0 $((LINES - 1))); do printf 'http://127.0.0.1:%s/jpg/img-%03d.jpg\n' "$PORT" $((i % 200)); done > "$SCRATCH/list.txt"

# A static Swift hello, built once per compiler.
HELLO="$OUT/hello-$(swiftc --version 2>&1 | head -1 | tr -cd 'A-Za-z0-9.' | cut -c1-60)"
if [[ ! -x "$HELLO" ]]; then
  echo 'print("hello")' > "$SCRATCH/hello.swift"
  swiftc -O -static-stdlib "$SCRATCH/hello.swift" -o "$HELLO"
fi

# count NAME CMD...: runs CMD under callgrind (no environment but PATH, HOME and the locale: no config
# file, no IMGFETCH_* variables), prints its instruction count, writes OUT/NAME.callgrind and
# OUT/NAME.top.txt (the top 10 inclusive costs).
count() {
  local name=$1; shift
  env -i PATH="$PATH" HOME="$SCRATCH/home" LC_ALL=C VIPS_CONCURRENCY="$VIPS_CONCURRENCY" \
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$name.callgrind" "$@" \
    > "$SCRATCH/$name.out" 2> "$SCRATCH/$name.err" || { echo "bench-instructions: $name failed:" >&2; tail -5 "$SCRATCH/$name.err" >&2; exit 1; }
  if grep -q "debuginfo" "$SCRATCH/$name.err"; then echo "bench-instructions: valgrind cannot read $name's debug information" >&2; exit 1; fi
  callgrind_annotate --inclusive=yes "$OUT/$name.callgrind" 2>/dev/null \
    | awk '/PROGRAM TOTALS/{p=1; next} p && /^ *[0-9,]+ \(/{print; if (++n == 10) exit}' > "$OUT/$name.top.txt"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$SCRATCH/$name.err"
}

G=("$BIN" get "$FILE" -s 320x320)
"${G[@]}" -o "$SCRATCH/hit.jpg" --cache-dir "$SCRATCH/hit-cache"                   # fills the entry
hello=$(count hello "$HELLO")
hit=$(count hit "${G[@]}" -o "$SCRATCH/hit.jpg" --cache-dir "$SCRATCH/hit-cache")
cold=$(count cold-file "${G[@]}" -o "$SCRATCH/cold.jpg" --cache-dir "$SCRATCH/cold-cache")
http=$(count cold-http "$BIN" get "$URL" -s 320x320 -o "$SCRATCH/http.jpg" --cache-dir "$SCRATCH/http-cache")
djpeg=$(count djpeg djpeg -scale 1/2 -outfile "$SCRATCH/djpeg.ppm" "$FILE")
vt=$(count vipsthumbnail vipsthumbnail "$FILE" -s 320x320 -o "$SCRATCH/vt.jpg")
pf=$(count prefetch "$BIN" prefetch "$SCRATCH/list.txt" -s 320x320 --no-progress --cache-dir "$SCRATCH/pf-cache")
pfi=$((pf / LINES))
[[ $(find "$SCRATCH/pf-cache" -name '*.jpg' | wc -l) -ge $((LINES < 200 ? LINES : 200)) ]] || { echo "bench-instructions: the prefetch stored too few images" >&2; exit 1; }

# The SHA-256 as the CPU runs it: valgrind cannot execute the SHA extensions (sha256rnds2), so under
# callgrind libcrypto hashes with its AVX2 code; on a CPU that has them it runs
# sha256_block_data_order_shaext, whose loop (counted in BIN's disassembly) is a fixed number of
# instructions a 64-byte block, whatever the bytes. Computed, not counted: the AVX2 code's instructions
# a block are the cold get's (its source is FILE, the run's only long input), and each path's AVX2
# count is replaced by as many blocks at the SHA extensions' count.
# (awk reads to the end: an early exit would end callgrind_annotate and objdump with SIGPIPE)
avx2() { callgrind_annotate "$OUT/$1.callgrind" 2>/dev/null | awk '/sha256_block_data_order_avx2/ && !n++ { gsub(",", "", $1); print $1 }'; }
shaext=$(objdump -d --no-show-raw-insn --disassemble=sha256_block_data_order_shaext "$BIN" 2>/dev/null | awk '
  /^ *[0-9a-f]+:\t/ { a = $1; sub(":", "", a); addr[n] = a; text[n] = $0; n++ }
  END { for (i = n - 1; i >= 0; i--) if (text[i] ~ /\tjne /) { split(text[i], f, " "); t = f[3]; break }
        for (j = 0; j < n; j++) if (addr[j] == t) { print i - j + 1; break } }')
blocks=$((($(stat -c %s "$FILE") + 9 + 63) / 64))
cold_avx2=$(avx2 cold-file); pf_avx2=$(avx2 prefetch)
[[ -n "$shaext" && -n "$cold_avx2" && -n "$pf_avx2" ]] || { echo "bench-instructions: no SHA-256 code found in $BIN" >&2; exit 1; }
with_shaext() { awk -v t="$1" -v a="$2" -v per="$cold_avx2" -v b="$blocks" -v s="$shaext" 'BEGIN { printf "%.0f", t - a + a / (per / b) * s }'; }
cold_sx=$(with_shaext "$cold" "$cold_avx2")
pfi_sx=$(($(with_shaext "$pf" "$pf_avx2") / LINES))

m() { awk -v n="$1" 'BEGIN { printf "%.2f M", n / 1e6 }'; }
r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
{
  echo "| path | imgfetch | reference | ratio | target |"
  echo "|---|---|---|---|---|"
  echo "| cache hit \`get FILE -s 320x320 -o out.jpg\` | $(m "$hit") | static Swift hello $(m "$hello") | $(r "$hit" "$hello") | <= 1.5 |"
  echo "| cold \`get\` from a file (2000x1500 -> 320x240) | $(m "$cold") | djpeg -scale 1/2 $(m "$djpeg") | $(r "$cold" "$djpeg") | <= 1.4 |"
  echo "| cold \`get\` over HTTP (nginx) | $(m "$http") | djpeg -scale 1/2 $(m "$djpeg") | $(r "$http" "$djpeg") | |"
  echo "| \`prefetch\` of $LINES URLs, per image | $(m "$pfi") | djpeg -scale 1/2 $(m "$djpeg") | $(r "$pfi" "$djpeg") | <= 1.2 |"
  echo "| cold \`get\` from a file | $(m "$cold") | vipsthumbnail $(m "$vt") | $(r "$cold" "$vt") | |"
  echo "| cold \`get\` from a file, SHA-256 at the SHA extensions' $shaext a block (computed) | $(m "$cold_sx") | djpeg -scale 1/2 $(m "$djpeg") | $(r "$cold_sx" "$djpeg") | |"
  echo "| \`prefetch\` per image, the same (computed) | $(m "$pfi_sx") | djpeg -scale 1/2 $(m "$djpeg") | $(r "$pfi_sx" "$djpeg") | |"
} | tee "$OUT/table.md"
source "$HERE/bench/instructions-formats.sh"
echo "top 10 inclusive costs of each path: $OUT/*.top.txt" >&2
