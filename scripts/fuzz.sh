#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets and runs each for FUZZ_SECONDS (default 60).
#   FUZZ_TARGETS="list source headers meta listing direct numbers jpeg png webp gif" (default: all)   FUZZ_JOBS=1
# Targets: list, source, headers, meta, listing, direct, numbers (Tests/Fuzz/ImageFetchFuzz.swift, compiled with ImageFetch's
# sources into one module: SwiftPM executables do not link with -sanitize=fuzzer) and jpeg
# (Tests/Fuzz/fuzz_jpeg.c on jpeg_fast.c + codecs_resize.c + jpeg_stream.c + jpeg_scans.c), png, webp and gif
# (Tests/Fuzz/fuzz_decoders.c on Sources/CDecoders + codecs_resize.c: each decoder and the thumbnail of its
# pixels; FUZZ_TARGET picks the decoder). Each starts from its seed corpus in
# Tests/Fuzz/<target>/corpus; what it learns goes to .build/fuzz/corpus/<target>, a crash to
# .build/fuzz/crashes/<target>-crash-* (and the run fails). Prints one line per target:
# inputs executed, seconds, crashes.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
SECS=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-list source headers meta listing direct numbers jpeg png webp gif}
OUT=.build/fuzz
# The toolchain's own clang: its compiler-rt has the libFuzzer swiftc links.
CLANG=${FUZZ_CLANG:-$(dirname "$(command -v swiftc)")/clang}
MODULES=(CVips CCurl CJpeg CCodecs CDecoders CSignals CNet CCrypto)   # the C targets ImageFetch imports
mkdir -p "$OUT/obj" "$OUT/crashes"
for m in "${MODULES[@]}"; do mkdir -p "$OUT/modules/$m"; done
INCLUDES=(); for m in "${MODULES[@]}"; do INCLUDES+=(-ISources/$m/include); done

# ---- build ---------------------------------------------------------------------------------------
# The C shims with coverage and ASan (libFuzzer's runtime is linked once, by swiftc).
for f in Sources/CVips/*.c Sources/CCurl/*.c Sources/CJpeg/*.c Sources/CCodecs/*.c Sources/CDecoders/*.c Sources/CSignals/*.c Sources/CNet/*.c Sources/CCrypto/*.c; do
  o="$OUT/obj/$(basename "$(dirname "$f")")-$(basename "$f" .c).o"
  if [[ ! -f "$o" || "$f" -nt "$o" ]]; then
    "$CLANG" -c -g -O1 -fsanitize=fuzzer-no-link,address "${INCLUDES[@]}" "$f" -o "$o"
  fi
done
# Module maps for the C modules (SwiftPM makes the same ones itself).
for m in "${MODULES[@]}"; do
  header=$(ls "$PWD/Sources/$m/include/"*.h | sed -n 1p)
  printf 'module %s {\n  header "%s"\n  export *\n}\n' "$m" "$header" > "$OUT/modules/$m/module.modulemap"
done
MODULE_FLAGS=(); for m in "${MODULES[@]}"; do MODULE_FLAGS+=(-I "$OUT/modules/$m"); done
# The library, and the CLI's list format (Sources/imgfetch/Prefetch: its list files compile in either).
SWIFT_SOURCES=$( (find Sources/ImageFetch -name '*.swift'; ls Sources/imgfetch/Prefetch/List{Line,Parser,Parser+Fields}.swift) | sort)
newest=$(ls -t $SWIFT_SOURCES Tests/Fuzz/ImageFetchFuzz.swift "$OUT"/obj/*.o | sed -n 1p)
if [[ ! -x "$OUT/imagefetch-fuzz" || "$newest" -nt "$OUT/imagefetch-fuzz" ]]; then
  echo "building $OUT/imagefetch-fuzz" >&2
  # shellcheck disable=SC2086
  swiftc -swift-version 6 -O -g -parse-as-library -module-name ImageFetchFuzz -sanitize=fuzzer,address \
    "${MODULE_FLAGS[@]}" $SWIFT_SOURCES Tests/Fuzz/ImageFetchFuzz.swift \
    "$OUT"/obj/*.o -use-ld=lld -Xlinker -l:libcrypto.a -ldl -lpthread -lm -o "$OUT/imagefetch-fuzz"
fi
JPEG_SOURCES=(Tests/Fuzz/fuzz_jpeg.c Sources/CJpeg/jpeg_fast.c Sources/CCodecs/codecs_resize.c Sources/CCodecs/codecs_taps.c Sources/CJpeg/jpeg_stream.c Sources/CJpeg/jpeg_scans.c)
if [[ ! -x "$OUT/jpeg-fuzz" || "$(ls -t "${JPEG_SOURCES[@]}" Sources/CJpeg/*.h Sources/CJpeg/include/*.h Sources/CCodecs/*.h Sources/CCodecs/include/*.h "$OUT/jpeg-fuzz" | sed -n 1p)" != "$OUT/jpeg-fuzz" ]]; then
  echo "building $OUT/jpeg-fuzz" >&2
  "$CLANG" -g -O1 -fsanitize=fuzzer,address -ISources/CJpeg/include -ISources/CJpeg -ISources/CCodecs/include -ISources/CCodecs \
    "${JPEG_SOURCES[@]}" -fuse-ld=lld -ldl -lpthread -lm -o "$OUT/jpeg-fuzz"
fi
DECODER_SOURCES=(Tests/Fuzz/fuzz_decoders.c Sources/CDecoders/*.c Sources/CCodecs/codecs_resize.c Sources/CCodecs/codecs_taps.c Sources/CCodecs/codecs_common.c)
if [[ ! -x "$OUT/decoders-fuzz" || "$(ls -t "${DECODER_SOURCES[@]}" Sources/CDecoders/*.h Sources/CDecoders/include/*.h Sources/CCodecs/*.h Sources/CCodecs/include/*.h "$OUT/decoders-fuzz" | sed -n 1p)" != "$OUT/decoders-fuzz" ]]; then
  echo "building $OUT/decoders-fuzz" >&2
  "$CLANG" -g -O1 -fsanitize=fuzzer,address -ISources/CDecoders/include -ISources/CDecoders -ISources/CCodecs/include -ISources/CCodecs \
    "${DECODER_SOURCES[@]}" -fuse-ld=lld -ldl -lpthread -lm -o "$OUT/decoders-fuzz"
fi

# ---- run -----------------------------------------------------------------------------------------
export SWIFT_BACKTRACE=enable=no           # else a crash hangs for minutes in Swift's crash reporter
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
status=0
for t in $TARGETS; do
  bin="$OUT/imagefetch-fuzz"
  [[ "$t" == jpeg ]] && bin="$OUT/jpeg-fuzz"
  [[ "$t" == png || "$t" == webp || "$t" == gif ]] && bin="$OUT/decoders-fuzz"
  mkdir -p "$OUT/corpus/$t"
  log="$OUT/$t.log"
  set +e
  FUZZ_TARGET=$t "$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$OUT/crashes/$t-" "$OUT/corpus/$t" "Tests/Fuzz/$t/corpus" > "$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  crashes=$(grep -c "^artifact_prefix\|Test unit written to" "$log" || true)
  printf 'fuzz %-8s %10s inputs in %ss (%s/s), %s crash(es)%s\n' "$t" "${runs:-?}" "$SECS" "${secs:-?}" "$crashes" \
    "$([[ $rc -ne 0 ]] && echo ": see $log")"
  [[ $rc -ne 0 ]] && status=1
done
exit $status
