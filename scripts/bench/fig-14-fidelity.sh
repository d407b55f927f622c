#!/usr/bin/env bash
# fig-14-fidelity.sh BIN: figure 14 of the benchmark suite, alone: the driver, scripts/bench.sh,
# with ONLY=14 (its corpus, servers and table). The driver sources this file for its part of a run.
[[ "${BASH_SOURCE[0]}" != "$0" ]] || ONLY=14 exec "$(dirname "$0")/../bench.sh" "$@"

# ------------------------------------------------------------------ fidelity
if want 14; then
  log "figure 14: fidelity vs a float Lanczos3 reference and vipsthumbnail"
  FID="$RUN/fidelity"; mkdir -p "$FID"
  FIX="$(dirname "$HERE")/../Tests/Fixtures"
  for f in photo portrait progressive detail icc-adobe icc-prophoto grey-profile; do ln -sf "$(realpath "$FIX/$f.jpg")" "$FID/"; done
  find /usr/share/backgrounds -maxdepth 2 -type f \( -name '*.jpg' -o -name '*.webp' -o -name '*.png' \) 2>/dev/null | sort | head -8 \
    | while read -r f; do ln -sf "$f" "$FID/bg-$(basename "$f")"; done
  ls "$CORPUS/jpg" 2>/dev/null | head -3 | while read -r f; do ln -sf "$CORPUS/jpg/$f" "$FID/corpus-$f"; done
  /usr/bin/python3 "$(dirname "$HERE")/fidelity.py" report "$BIN" "$FID" > "$RES/fidelity.json" \
    || warn "[f14] scripts/fidelity.py report failed"
fi
