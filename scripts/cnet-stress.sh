#!/usr/bin/env bash
# CNet (the direct HTTP exchange of the remote tier) under threads, cancels, lowered limits and the
# resolver thread (Tests/Support/cnet_stress.c), built with a sanitizer: `address` (with undefined;
# `make sanitize` runs it) or `thread` (`make tsan`). Any sanitizer report or problem fails it.
# Usage: cnet-stress.sh address|thread
set -euo pipefail
KIND=${1:?usage: cnet-stress.sh address|thread}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/.build/cnet-stress"
mkdir -p "$OUT"
case $KIND in
  address) FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"; export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 ;;
  thread) FLAGS="-fsanitize=thread"; export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ;;
  *) echo "cnet-stress: address or thread, not '$KIND'" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
gcc -std=gnu11 -O1 -g $FLAGS -I "$ROOT/Sources/CNet/include" "$ROOT/Sources/CNet/net_exchange.c" \
  "$ROOT/Tests/Support/cnet_stress.c" -o "$OUT/cnet-stress-$KIND" -lpthread
"$OUT/cnet-stress-$KIND"
