#!/usr/bin/env bash
# Regenerates the SYNOPSIS section of man/imgfetch.1 from the command specs
# (`imgfetch --help-man-synopsis`); DocumentationTests fails while the page is out of date.
#   scripts/update-man.sh [BINARY]   (default: .build/debug/imgfetch)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/.build/debug/imgfetch}
MAN=$ROOT/man/imgfetch.1
SYNOPSIS=$("$BIN" --help-man-synopsis)
python3 - "$MAN" "$SYNOPSIS" <<'PY'
import sys
path, synopsis = sys.argv[1], sys.argv[2].rstrip("\n") + "\n"
text = open(path).read()
start = text.index(".Sh SYNOPSIS\n") + len(".Sh SYNOPSIS\n")
end = text.index(".Sh DESCRIPTION\n")
open(path, "w").write(text[:start] + synopsis + text[end:])
PY
