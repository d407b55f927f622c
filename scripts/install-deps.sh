#!/usr/bin/env bash
# Installs the Debian packages imgfetch needs, only those missing. Run as root, or with sudo available.
#   libvips-dev, libcurl4-openssl-dev: headers (the binary dlopens libvips.so.42 and libcurl.so.4 at run time)
#   libjpeg62-turbo-dev: jpeglib.h for the JPEG path (the shim and the `make fuzz` target dlopen libjpeg.so.62)
#   python3: the end-to-end tests' HTTP server; python3-numpy, python3-pil: scripts/fidelity.py (the
#   fidelity tests and figures); libvips-tools: vipsthumbnail, the reference for sizes; mandoc: man page lint
#   python3-yaml, jq: the documentation tests (YAML blocks parse, examples piped to jq run)
#   zsh, fish: the completion tests load each generated script in its shell
#   tmux, bsdutils (script): the progress bar tests draw it in a pseudo-terminal
#   strace: a signal test holds a rename so a temporary file certainly exists
#   chromium: the end-to-end test that loads `cache gallery`'s page in a real browser (headless)
#   (`make sanitize` and `make fuzz` need nothing more: the Swift toolchain's clang and compiler-rt
#   carry AddressSanitizer and libFuzzer)
#   BENCH_DEPS=1 adds what `make bench` compares against: nginx-light, hyperfine, curl, aria2, time, and
#   gnome-backgrounds (wallpapers for the fidelity figures)
set -euo pipefail
want=(libvips-dev libvips-tools libcurl4-openssl-dev libjpeg62-turbo-dev pkg-config python3 python3-numpy python3-pil mandoc python3-yaml jq zsh fish tmux bsdutils strace chromium)
if [[ "${BENCH_DEPS:-0}" == 1 ]]; then want+=(nginx-light hyperfine curl aria2 time gnome-backgrounds); fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "installing: ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
