# instructions-formats.sh -- sourced by scripts/bench-instructions.sh after its paths table: issue 44's
# table, one row per source and output format, imgfetch (a cold `get SRC -s 320x320`, each into an empty
# cache; the SHA-256 at the SHA extensions' count, as above) against vipsthumbnail doing the same job
# (`vipsthumbnail SRC -s 320x320 -o out.EXT`), with the issue's target beside each ratio, and floors:
#   WebP rows  dwebp -scale to the output's size, plus the output encoder's count for those pixels
#              (cwebp or cjpeg of dwebp's PPM, both at their default quality 75, as imgfetch's)
#   PNG rows   scripts/bench/png-decode.c: libpng decoding the source whole (built here with gcc)
# Its sources: scripts/bench/make-formats.sh (CORPUS/formats/); the derive row's 1200x800 JPEG is cached
# by a first get over HTTP, then `-s 100 -f webp` is derived from the kept original. The -f auto row's
# reference writes WebP (the candidate that wins for a photo). Output: OUT/formats.md.

FMT="$CORPUS/formats"
for t in dwebp cwebp cjpeg gcc; do
  command -v "$t" >/dev/null || { echo "bench-instructions: $t missing (BENCH_DEPS=1 scripts/install-deps.sh)" >&2; exit 1; }
done
"$HERE/bench/make-formats.sh" "$CORPUS" >&2
PNGDEC="$OUT/png-decode"
gcc -O2 -o "$PNGDEC" "$HERE/bench/png-decode.c" -lpng

# sx NAME TOTAL: TOTAL with NAME's SHA-256 at the SHA extensions' count (no SHA-256 code ran: TOTAL).
sx() { local a; a=$(avx2 "$1"); if [[ -n "$a" ]]; then with_shaext "$2" "$a"; else echo "$2"; fi; }
# row LABEL TARGET SRC EXT FLOOR [imgfetch args...]: a cold get of SRC to EXT ("auto": -f auto) against
# vipsthumbnail; prints a table row. FLOOR: a count, or empty.
n=0
row() {
  local label=$1 target=$2 src=$3 ext=$4 floor=$5; shift 5
  n=$((n + 1))
  local out="$SCRATCH/f$n.$ext" vt_out="$SCRATCH/f$n-vt.$ext" fmt=()
  [[ "$ext" == auto ]] && { out="$SCRATCH/f$n"; vt_out="$SCRATCH/f$n-vt.webp"; fmt=(-f auto); }
  local t v
  t=$(count "f$n" "$BIN" get "$src" -s 320x320 "${fmt[@]}" "$@" -o "$out" --cache-dir "$SCRATCH/f$n-cache")
  t=$(sx "f$n" "$t")
  local vsrc=$src; [[ "$label" == animated* ]] && vsrc="$src[n=-1]"
  v=$(count "f$n-vt" vipsthumbnail "$vsrc" -s 320x320 -o "$vt_out")
  local fl="" flr=""
  [[ -n "$floor" ]] && { fl=$(m "$floor"); flr=$(r "$t" "$floor"); }
  echo "| $label | $(m "$t") | $(m "$v") | $(r "$t" "$v") | $target | $fl | $flr |"
}
# The WebP floors: dwebp to 320x240, then the output's encoder on those pixels.
dw=$(count dwebp dwebp "$FMT/src.webp" -scale 320 240 -ppm -o "$SCRATCH/dwebp.ppm")
cw=$(count cwebp cwebp -quiet "$SCRATCH/dwebp.ppm" -o "$SCRATCH/cwebp.webp")
cj=$(count cjpeg cjpeg -outfile "$SCRATCH/cjpeg.jpg" "$SCRATCH/dwebp.ppm")
prgb=$(count png-rgb "$PNGDEC" "$FMT/rgb.png")
prgba=$(count png-rgba "$PNGDEC" "$FMT/rgba.png")
# The derive: the 1200x800 JPEG cached (its original kept) by a first get over HTTP.
DERIVE_URL="http://127.0.0.1:$PORT/formats/d1200.jpg"
"$BIN" get "$DERIVE_URL" -s 320x320 -o "$SCRATCH/derive-first.jpg" --cache-dir "$SCRATCH/derive-cache" >/dev/null
derive=$(count derive "$BIN" get "$DERIVE_URL" -s 100 -f webp -o "$SCRATCH/derive.webp" --cache-dir "$SCRATCH/derive-cache")
derive=$(sx derive "$derive")
derive_vt=$(count derive-vt vipsthumbnail "$FMT/d1200.jpg" -s 100 -o "$SCRATCH/derive-vt.webp")
{
  echo
  echo "| row (2000x1500 sources, cold \`get -s 320x320\`) | imgfetch | vipsthumbnail | ratio | target | floor | imgfetch / floor |"
  echo "|---|---|---|---|---|---|---|"
  row "JPEG -> JPEG" "no worse than 0.30" "$FILE" jpg ""
  row "progressive JPEG -> JPEG" "no worse than 0.46" "$FMT/prog.jpg" jpg ""
  row "JPEG -> WebP" "<= 0.45" "$FILE" webp ""
  row "JPEG -> PNG" "<= 0.45" "$FILE" png ""
  row "JPEG -> AVIF" "<= 0.9" "$FILE" avif ""
  row "JPEG 6000x4000 -> WebP" "<= 0.65" "$CORPUS/large/big-00.jpg" webp ""
  row "PNG RGB -> PNG" "<= 0.6" "$FMT/rgb.png" png "$prgb"
  row "PNG RGB -> JPEG" "<= 0.6" "$FMT/rgb.png" jpg "$prgb"
  row "PNG RGBA -> PNG" "<= 0.6" "$FMT/rgba.png" png "$prgba"
  row "PNG RGBA -> JPEG" "<= 0.6" "$FMT/rgba.png" jpg "$prgba"
  row "WebP -> WebP (floor: dwebp -scale + cwebp)" "<= 0.7, <= 1.1 floor" "$FMT/src.webp" webp $((dw + cw))
  row "WebP -> JPEG (floor: dwebp -scale + cjpeg)" "<= 0.7, <= 1.1 floor" "$FMT/src.webp" jpg $((dw + cj))
  row "GIF -> \`-f auto\` (a still)" "<= 0.6" "$FMT/still.gif" auto ""
  row "animated GIF (20 frames, 800x600) -> GIF" "<= 0.5" "$FMT/anim.gif" gif ""
  echo "| derive from a cached 1200x800 JPEG -> 100 px WebP | $(m "$derive") | $(m "$derive_vt") | $(r "$derive" "$derive_vt") | <= 0.45 | | |"
  echo
  echo "floors: png-decode (libpng, whole) RGB $(m "$prgb"), RGBA $(m "$prgba"); dwebp -scale 320 240 $(m "$dw"), cwebp $(m "$cw"), cjpeg $(m "$cj")"
} | tee "$OUT/formats.md"
