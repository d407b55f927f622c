#!/usr/bin/env bash
# loop.sh imgfetch BIN LIST OUTDIR CACHEDIR   one `imgfetch get URL -s 320x320 -q 80 -o OUTDIR/N.jpg` per URL
# loop.sh pipe LIST OUTDIR                    one `curl -s URL | vipsthumbnail stdin -s 320x320 -o OUTDIR/N.jpg[Q=80]`
# Figure 7 of bench.sh: one process (pair) per URL, sequentially, the way a shell script does it.
# Exits non-zero at the first failure.
set -eo pipefail
mode=$1; shift
case "$mode" in
  imgfetch)
    bin=$1 list=$2 out=$3 cache=$4; n=0
    while IFS= read -r url; do
      n=$((n + 1))
      "$bin" get "$url" -s 320x320 -q 80 -o "$out/$n.jpg" --cache-dir "$cache"
    done < "$list" ;;
  pipe)
    list=$1 out=$2; n=0
    while IFS= read -r url; do
      n=$((n + 1))
      curl -sS -f "$url" | vipsthumbnail stdin -s 320x320 -o "$out/$n.jpg[Q=80]"
    done < "$list" ;;
  *) echo "usage: loop.sh imgfetch BIN LIST OUTDIR CACHEDIR | loop.sh pipe LIST OUTDIR" >&2; exit 2 ;;
esac
