#!/usr/bin/env bash
# make-corpus.sh DIR -- build the benchmark corpus with the vips CLI (nothing is downloaded).
#
# Layout (under DIR, ~420 MB, 300 of them web/):
#   jpg/img-000..199.jpg   200 x 2000x1500 baseline JPEG Q85 (~0.6 MB each)
#   large/big-00.jpg         1 x 6000x4000 baseline JPEG Q80 (~3.7 MB)
#   small/thumb-20k.jpg      one ~20 KB JPEG (470x352)
#   VERSION
#   web/web-0000..1999.jpg 2000 x 1000x750 JPEG Q85, web-sized photos: ten crops of each jpg/ image
#                          (~0.15 MB each; figure 24), with its own web/VERSION
# Does nothing when DIR/VERSION and DIR/web/VERSION match (same recipe, same libvips); FORCE=1 rebuilds.
# Deterministic: libvips perlin/worley/gaussnoise are seeded, so one libvips/libjpeg version gives
# byte-identical files (the same recipe and crops as the project's reference corpus).
set -euo pipefail

CORPUS=${1:?usage: make-corpus.sh DIR}
STAMP="imgfetch-bench-corpus-v1 $(vips --version 2>/dev/null || echo novips)"
export VIPS_CONCURRENCY=${VIPS_CONCURRENCY:-2}
command -v vips >/dev/null || { echo "vips CLI missing: apt-get install -y libvips-tools" >&2; exit 1; }

WEB_STAMP="imgfetch-bench-web-v1 $(vips --version 2>/dev/null || echo novips)"
stamped() { [[ -z "${FORCE:-}" && -f "$1/VERSION" && "$(cat "$1/VERSION")" == "$2" ]]; }
if stamped "$CORPUS" "$STAMP" && stamped "$CORPUS/web" "$WEB_STAMP"; then
  echo "corpus up to date: $CORPUS"
  exit 0
fi

# web/: 1000x750 crops of the jpg/ photos at ten offsets each (built after them, into their directory)
make_web() {
  local out="$CORPUS/web.building" jobs="$CORPUS.web-jobs.txt" i src j x y
  echo "building the web-sized set in $CORPUS/web (2,000 vips runs: a few minutes)..."
  rm -rf "$out"; mkdir -p "$out"; : > "$jobs"
  for i in $(seq 0 1999); do
    src=$((i % 200)); j=$((i / 200))
    x=$(( (j * 97 + src * 13) % 1001 )); y=$(( (j * 61 + src * 7) % 751 ))
    printf 'vips crop "%s" "%s[Q=85,strip]" %d %d 1000 750\n' "$CORPUS/jpg/img-$(printf %03d "$src").jpg" \
      "$out/web-$(printf %04d "$i").jpg" $x $y >> "$jobs"
  done
  xargs -P 2 -d '\n' -I{} sh -c '{}' < "$jobs"
  rm -f "$jobs"
  echo "$WEB_STAMP" > "$out/VERSION"
  rm -rf "$CORPUS/web"
  mv "$out" "$CORPUS/web"
}
if stamped "$CORPUS" "$STAMP"; then
  make_web
  echo "corpus web set built: $CORPUS/web ($(du -sh "$CORPUS/web" | cut -f1))"
  exit 0
fi

echo "building the corpus in $CORPUS (about a minute)..."
t0=$(date +%s)
OUT="$CORPUS.building"
WORK="$CORPUS.work"
rm -rf "$OUT" "$WORK"
mkdir -p "$OUT"/{jpg,large,small} "$WORK"
cd "$WORK"

# Base "photo" 6400x4400: per band 3 octaves of Perlin noise plus a shared Worley layer, upsampled,
# plus seeded luminance grain (sigma 6) so the JPEGs compress like real photos.
W=1600; H=1100
for b in 0 1 2; do
  vips perlin p${b}a.v $W $H --cell-size 512 --seed $((b*10+1))
  vips perlin p${b}b.v $W $H --cell-size 128 --seed $((b*10+2))
  vips perlin p${b}c.v $W $H --cell-size 24  --seed $((b*10+3))
  vips linear p${b}b.v p${b}b2.v 0.6 0
  vips linear p${b}c.v p${b}c2.v 0.3 0
  vips add p${b}a.v p${b}b2.v s${b}.v
  vips add s${b}.v p${b}c2.v t${b}.v
done
vips worley w.v $W $H --cell-size 120 --seed 5
vips bandjoin "t0.v t1.v t2.v" lo.v
vips linear lo.v lo2.v 220 128
vips linear -- w.v wl.v -0.9 25
vips bandjoin "wl.v wl.v wl.v" w3.v
vips add lo2.v w3.v low.v
vips cast low.v lo8.v uchar
vips resize lo8.v hi.v 4 --kernel cubic
vips gaussnoise n.v 6400 4400 --sigma 6 --mean 0 --seed 7
vips bandjoin "n.v n.v n.v" n3.v
vips add hi.v n3.v hin.v
vips cast hin.v base.v uchar
rm -f p?[abc].v p?[bc]2.v s?.v t?.v w.v wl.v w3.v lo.v lo2.v low.v n.v n3.v hin.v lo8.v hi.v

JOBS="$WORK/jobs.txt"; : > "$JOBS"
for i in $(seq 0 199); do
  x=$(( (i*211) % 4401 )); y=$(( (i*137) % 2901 ))
  printf 'vips crop base.v "%s[Q=85,strip]" %d %d 2000 1500\n' "$OUT/jpg/img-$(printf %03d "$i").jpg" $x $y >> "$JOBS"
done
printf 'vips crop base.v "%s[Q=80,strip]" 0 0 6000 4000\n' "$OUT/large/big-00.jpg" >> "$JOBS"
xargs -P 2 -d '\n' -I{} sh -c '{}' < "$JOBS"
vips thumbnail "$OUT/jpg/img-000.jpg" "$OUT/small/thumb-20k.jpg[Q=85,strip]" 470   # ~20 KB

cd /
rm -rf "$WORK"
echo "$STAMP" > "$OUT/VERSION"
rm -rf "$CORPUS"
mv "$OUT" "$CORPUS"
make_web
echo "corpus built in $(( $(date +%s) - t0 )) s: $CORPUS ($(du -sh "$CORPUS" | cut -f1))"
