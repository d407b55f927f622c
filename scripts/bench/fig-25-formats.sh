#!/usr/bin/env bash
# fig-25-formats.sh BIN: figure 25 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=25 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=25 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 25: cold get per source format
# A cold `get FILE -s 320x320` of each source of scripts/bench/make-formats.sh (2000x1500 but the
# animation's 800x600), written in its own format (a still GIF: -f auto), vs vipsthumbnail FILE doing the
# same (its -f auto stand-in writes WebP, an animation [n=-1]); targets: issue 44's instruction ratios.
if want 25; then
  log "figure 25: cold get per source format vs vipsthumbnail"
  "$HERE/make-formats.sh" "$CORPUS" >&2
  mkdir -p "$RUN/f25"
  # id  title  source  imgfetch's output (no extension: -f auto)  vipsthumbnail's  target
  while read -r id src out vt target title; do
    fmt=""; [[ "$out" == *.* ]] || fmt="-f auto"
    vsrc="$CORPUS/formats/$src"; [[ "$src" == anim.gif ]] && vsrc="$vsrc[n=-1]"
    cd25="$RUN/f25/$id-cache"
    hf "$id" "$F1" shell \
      "imgfetch get FILE (cold)" "$G get $(q "$CORPUS/formats/$src") $TH $fmt -o $(q "$RUN/f25/$out") --cache-dir $(q "$cd25")" "rm -rf $(q "$cd25") $(q "$RUN/f25/$out")" \
      "vipsthumbnail FILE" "vipsthumbnail $(q "$vsrc") $TH -o $(q "$RUN/f25/$vt")" "rm -f $(q "$RUN/f25/$vt")"
    fig "$id" "cold get, ${title//_/ } (fresh cache)" "imgfetch get" "$(med "$id" "imgfetch get FILE (cold)")" \
      "vipsthumbnail" "$(med "$id" "vipsthumbnail FILE")" s "$target" "<= $target"
  done <<'ROWS'
25j  ../jpg/img-000.jpg  j.webp  j-vt.webp  0.45  JPEG_->_WebP
25p  rgb.png             p.png   p-vt.png   0.6   PNG_RGB_->_PNG
25a  rgba.png            a.png   a-vt.png   0.6   PNG_RGBA_->_PNG
25w  src.webp            w.webp  w-vt.webp  0.7   WebP_->_WebP
25g  still.gif           g       g-vt.webp  0.6   GIF_still_->_-f_auto
25n  anim.gif            n.gif   n-vt.gif   0.5   animated_GIF_(20_frames_800x600)_->_GIF
ROWS
fi
