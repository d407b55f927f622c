#!/usr/bin/env bash
# fig-24-img2dataset.sh BIN: figure 24 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=24 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=24 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ 24: vs img2dataset 1.47
# The corpus's 2,000 web-sized photos (web/, 1000x750, ~0.15 MB) from nginx's /logged/, one list for
# both, the same work: fit in 320x320, JPEG q80, the original not kept, 16 transfers. imgfetch into a
# fresh cache; img2dataset 1.47 (IMG2DATASET, default the venv scripts/install-deps.sh makes with
# BENCH_DEPS=1) into a fresh folder of files, its 2 processes of 16 threads each given a shard of 1,000
# lines (its default shard of 10,000 would leave one process idle). Side by side in the same hyperfine
# rounds: wall time (24, <= 0.5) and CPU per image, user + system of the whole process tree (24b,
# <= 0.5: >= 2x the images per CPU-second). Checked: 2,000 thumbnails from each, fitting 320x320.
# NO_ALBUMENTATIONS_UPDATE=1: else img2dataset's albumentations asks PyPI for a newer version at start.
if want 24; then
  log "figure 24: prefetch 2,000 web-sized JPEGs vs img2dataset 1.47"
  I2D=${IMG2DATASET:-/opt/img2dataset-1.47/bin/img2dataset}
  [[ -x "$I2D" ]] || I2D=$(command -v img2dataset || true)
  T24="prefetch 2,000 web-sized JPEGs (1000x750) -> 320x320 q80, -j 16"
  why=""
  [[ $HAVE_NGINX == 1 ]] || why="no nginx"
  [[ -n "$I2D" ]] || why="no img2dataset (BENCH_DEPS=1 scripts/install-deps.sh)"
  if [[ -n "$why" ]]; then
    fig 24 "$T24" "imgfetch prefetch" NA "img2dataset 1.47" NA s 0.5 "<= 0.5" "SKIP: $why"
    fig 24b "the same, CPU per image" "imgfetch prefetch" NA "img2dataset 1.47" NA s 0.5 "<= 0.5" "SKIP: $why"
  else
    D24="$RUN/f24"; L24="$D24/urls.txt"; mkdir -p "$D24"
    ( cd "$CORPUS/web" && for f in web-*.jpg; do echo "$BASE/logged/web/$f"; done ) > "$L24"
    cat "$CORPUS"/web/*.jpg > /dev/null
    # its version, from the Python its script starts (its #! line)
    I2DV=$("$(sed -n '1s/^#!//p' "$I2D")" -c 'import importlib.metadata as m; print(m.version("img2dataset"))' 2>/dev/null || echo "?")
    [[ "$I2DV" == 1.47* ]] || warn "[f24] img2dataset $I2DV at $I2D, expected 1.47"
    hf f24 "$F23" shell \
      "imgfetch prefetch 2000 -j 16" \
      "$G prefetch $(q "$L24") -s 320x320 -q 80 --no-keep-original -j 16 --no-progress --cache-dir $(q "$D24/cache")" \
      "rm -rf $(q "$D24/cache")" \
      "img2dataset 2000" \
      "NO_ALBUMENTATIONS_UPDATE=1 $(q "$I2D") --url_list $(q "$L24") --input_format txt --output_format files --output_folder $(q "$D24/i2d") --image_size 320 --resize_mode keep_ratio_largest --encode_format jpg --encode_quality 80 --processes_count 2 --thread_count 16 --number_sample_per_shard 1000 --retries 0 --enable_wandb False" \
      "rm -rf $(q "$D24/i2d")"
    check_cache "$D24/cache" 2000 0 f24
    n=$(find "$D24/i2d" -name '*.jpg' 2>/dev/null | wc -l)
    [[ "$n" == 2000 ]] || warn "[f24] img2dataset wrote $n images, expected 2000"
    first=$(find "$D24/i2d" -name '*.jpg' 2>/dev/null | sort | sed -n 1p)
    if [[ -n "$first" ]]; then fits "$first" f24; fi
    ci=$(cpu_med f24 "imgfetch prefetch 2000 -j 16"); c2=$(cpu_med f24 "img2dataset 2000")
    per() { python3 -c 'import sys; print("NA" if sys.argv[1] == "NA" else "%.6f" % (float(sys.argv[1]) / 2000))' "$1"; }
    rate() { python3 -c 'import sys; print("n/a" if sys.argv[1] == "NA" else "%.0f" % (2000 / float(sys.argv[1])))' "$1"; }
    fig 24 "$T24" "imgfetch prefetch" "$(med f24 "imgfetch prefetch 2000 -j 16")" \
      "img2dataset 1.47" "$(med f24 "img2dataset 2000")" s 0.5 "<= 0.5"
    fig 24b "the same, CPU (user + system, with children) per image" "imgfetch prefetch" "$(per "$ci")" \
      "img2dataset 1.47" "$(per "$c2")" s 0.5 "<= 0.5 (>= 2x images per CPU-s)" \
      "$(rate "$ci") vs $(rate "$c2") images per CPU-second; CPU $(secs "$ci") vs $(secs "$c2")"
  fi
fi
