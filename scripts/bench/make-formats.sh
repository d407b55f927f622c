#!/usr/bin/env bash
# make-formats.sh CORPUS -- the sources of the per-format figures (`make bench-instructions`' format table,
# figure 25 of `make bench`), in CORPUS/formats/, from CORPUS/jpg/img-000.jpg (2000x1500; make-corpus.sh):
#   prog.jpg   a progressive copy (jpegtran, lossless)     rgb.png   the photo as an RGB PNG
#   rgba.png   RGBA: a horizontal alpha ramp (0 to 255)    src.webp  a WebP of it (Q85)
#   still.gif  a still GIF of it                           d1200.jpg a 1200x800 crop (Q85), for the derive row
#   anim.gif   scripts/bench/make-gifs.py's pan.gif: 20 frames of 800x600
# Does nothing when CORPUS/formats/VERSION matches (the same recipe and libvips); FORCE=1 rebuilds.
set -euo pipefail
CORPUS=${1:?usage: make-formats.sh CORPUS}
HERE=$(cd "$(dirname "$0")" && pwd)
FMT="$CORPUS/formats"
STAMP="imgfetch-bench-formats-v1 $(vips --version 2>/dev/null || echo novips)"
for t in vips jpegtran python3; do
  command -v "$t" >/dev/null || { echo "make-formats: $t missing (BENCH_DEPS=1 scripts/install-deps.sh)" >&2; exit 1; }
done
if [[ -z "${FORCE:-}" && -f "$FMT/VERSION" && "$(cat "$FMT/VERSION")" == "$STAMP" ]]; then exit 0; fi
echo "building the format sources in $FMT..." >&2
SRC="$CORPUS/jpg/img-000.jpg"
[[ -f "$SRC" ]] || { echo "make-formats: no $SRC (scripts/bench/make-corpus.sh first)" >&2; exit 1; }
rm -rf "$FMT.building" && mkdir -p "$FMT.building"
cd "$FMT.building"
jpegtran -progressive -copy none -outfile prog.jpg "$SRC"
vips copy "$SRC" rgb.png
vips grey ramp.v 2000 1500 --uchar
vips bandjoin "$SRC ramp.v" rgba.png
vips copy "$SRC" "src.webp[Q=85,strip]"
vips copy "$SRC" still.gif
vips crop "$SRC" "d1200.jpg[Q=85,strip]" 0 0 1200 800
python3 "$HERE/make-gifs.py" gifs 800 600
mv gifs/pan.gif anim.gif
rm -rf gifs ramp.v
echo "$STAMP" > VERSION
cd /
rm -rf "$FMT" && mv "$FMT.building" "$FMT"
