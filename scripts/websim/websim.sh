#!/bin/sh
# make websim: the simulated web (scripts/websim/) inside a network namespace of its own, where only
# loopback exists (nothing leaves the machine): imgfetch and img2dataset 1.47 side by side.
# Usage: scripts/websim/websim.sh IMGFETCH_BINARY. WEBSIM_LINES (default 20000) and the other
# variables of websim.py's header are passed on. img2dataset is installed in .build/websim-venv.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv="$root/.build/websim-venv"
if [ ! -x "$venv/bin/img2dataset" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet img2dataset==1.47.0
fi
export WEBSIM_IMGFETCH="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
export WEBSIM_PYTHON="$venv/bin/python"
export WEBSIM_DIR="${WEBSIM_DIR:-$root/.build/websim}"
lines=${WEBSIM_LINES:-20000}
# At least 4 descriptors per origin (the server's, the clients' and the blackholes' queued ones).
files=$(( lines / 10 * 4 + 4096 ))
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] || [ "$files" -le "$hard" ] || files=$hard
cd "$root"
exec unshare -rn sh -c "ip link set lo up && ulimit -n $files && exec \"\$0\" \"$here/websim.py\"" "$WEBSIM_PYTHON"
