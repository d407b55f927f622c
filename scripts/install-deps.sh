#!/usr/bin/env bash
# Installs the Debian packages imgfetch needs, only those missing. Run as root, or with sudo available.
#   libvips-dev, libcurl4-openssl-dev: headers (the binary dlopens libvips.so.42 and libcurl.so.4 at run time)
#   libjpeg62-turbo-dev: jpeglib.h for the JPEG path (the shim and the `make fuzz` target dlopen libjpeg.so.62)
#   libwebp-dev, libpng-dev: webp/encode.h and png.h for CCodecs' encoders (libwebp.so.7, libpng16.so.16 dlopen'ed)
#   libgif-dev: gif_lib.h for CDecoders' GIF decoder (libgif.so.7 dlopen'ed; webp/demux.h comes with libwebp-dev)
#   libssl-dev: libcrypto.a and openssl/sha.h, whose SHA-256 the CCrypto shim links statically
#   python3: the end-to-end tests' HTTP server; python3-numpy, python3-pil: scripts/fidelity.py (the
#   fidelity tests and figures); libvips-tools: vipsthumbnail, the reference for sizes; mandoc: man page lint
#   libjpeg-turbo-progs (jpegtran), gnome-backgrounds: the low-data tests make progressive photos of
#   the wallpapers at test time
#   python3-yaml, jq: the documentation tests (YAML blocks parse, examples piped to jq run)
#   zsh, fish: the completion tests load each generated script in its shell
#   tmux, bsdutils (script): the progress bar tests draw it in a pseudo-terminal
#   libimage-exiftool-perl (exiftool): the --keep-metadata tests write and read EXIF with it
#   strace: a signal test holds a rename so a temporary file certainly exists
#   chromium: the end-to-end test that loads `cache gallery`'s page in a real browser (headless)
#   nginx-light: the remote cache tests' HTTP store (WebDAV PUT, JSON autoindex); parallel: `make scale-demo`
#   python3-pip + moto[server] 5.2.1 (PyPI, with boto3): the remote cache tests' S3 store (moto's server
#   mode, authentication enforced) and its set-up (Tests/Support/moto_setup.py)
#   blurhash-python 1.2.2 (woltapp's C encoder and decoder) and thumbhash-python 1.0.1 (a port of
#   evanw's reference) (PyPI): the independent decoders of the placeholder tests (placeholder_check.py)
#   webdataset 1.0.2 (PyPI): the --shard-tar tests read the shards' tars as a training loop does
#   (shard_tar_check.py)
#   slurm-wlm, munge: `make engines-test`'s one-node Slurm cluster (Tests/Engines/slurm-cluster.sh);
#   openjdk-17-jre-headless + pyspark 4.0.1 (PyPI, spark-submit): its Spark recipe; parallel: its
#   GNU parallel recipe
#   (`make sanitize` and `make fuzz` need nothing more: the Swift toolchain's clang and compiler-rt
#   carry AddressSanitizer and libFuzzer)
#   dpkg-dev (dpkg-shlibdeps), binutils (strip, readelf): `make deb` (scripts/make-deb.sh); lintian: the
#   package test checks the package with it; man-db: `man -w` and the man page's 80-column check
#   g++: the C++ runtime's development files and gcc's start files, which linking the Swift binary needs
#   Sets, named as arguments (several add up; none: all of them, as before):
#     build    what `make build` needs: the headers, pkg-config, make, g++, dpkg-dev and binutils
#     demo     build + python3 (`make demo`: scripts/demo.sh serves the samples with the test server)
#     deb      build + lintian (`make deb` checks the package with it)
#     test     build + the test tools above but Slurm's and Spark's (`make test`, `make sanitize`,
#              `make tsan`, `make fuzz`, `make conformance`)
#     engines  build + python3, parallel, slurm-wlm, munge, openjdk-17-jre-headless, pyspark
#              (`make engines-test`)
#   The Makefile's `deps` names the sets of the goals it runs. DEPS=build (the Containerfile's build
#   stage, `make deb DEPS=build`) keeps to the build set whatever the arguments.
#   INSTALL_DEPS_DRY_RUN=1 prints what the sets want, one a line (apt packages, then `pip: NAME==VERSION`),
#   and installs nothing.
#   BENCH_DEPS=1 adds what `make bench` compares against: hyperfine, curl, aria2, time (gnome-backgrounds,
#   the wallpapers of the fidelity figures, is installed for the tests already); valgrind and
#   libjpeg-turbo-progs (djpeg, cjpeg, jpegtran), webp (dwebp, cwebp), libpng-dev (scripts/bench/png-decode.c),
#   python3-numpy and python3-pil (scripts/bench/make-gifs.py): `make bench-instructions`; python3-venv + img2dataset 1.47 (PyPI), figure
#   24's reference, in its own venv /opt/img2dataset-1.47 (it pins an older webdataset than the tests')
set -euo pipefail
# blurhash-python's module (PixelMode is its own: the pure-Python `blurhash` package uses the same name).
placeholder_check='from blurhash import PixelMode; from thumbhash import thumbhash_to_image'
sets=("$@")
[[ ${#sets[@]} -gt 0 ]] || sets=(test engines)
[[ "${DEPS:-}" != build ]] || sets=(build)
want=(libvips-dev libcurl4-openssl-dev libjpeg62-turbo-dev libwebp-dev libpng-dev libgif-dev libssl-dev pkg-config make g++ dpkg-dev binutils)
pip=()          # NAME==VERSION ... as pip takes them
pip_checks=()   # the Python import that tells each pip line is installed, in the same order
for set in "${sets[@]}"; do
  case "$set" in
    build) ;;
    demo) want+=(python3) ;;
    deb) want+=(lintian) ;;
    test)
      want+=(libjpeg-turbo-progs gnome-backgrounds libvips-tools python3 python3-numpy python3-pil mandoc python3-yaml jq zsh fish tmux bsdutils strace libimage-exiftool-perl chromium nginx-light parallel lintian man-db)
      pip+=("moto[server]==5.2.1" "webdataset==1.0.2" "blurhash-python==1.2.2 thumbhash-python==1.0.1")
      pip_checks+=('import moto.server, boto3' 'import webdataset' "$placeholder_check") ;;
    engines)
      want+=(python3 parallel slurm-wlm munge openjdk-17-jre-headless)
      pip+=("pyspark==4.0.1")
      pip_checks+=('import pyspark') ;;
    *) echo "install-deps.sh: unknown set '$set' (build, demo, deb, test, engines)" >&2; exit 2 ;;
  esac
done
if [[ "${BENCH_DEPS:-0}" == 1 ]]; then want+=(hyperfine curl aria2 time valgrind libjpeg-turbo-progs webp libpng-dev python3-numpy python3-pil python3-venv); fi
mapfile -t want < <(printf '%s\n' "${want[@]}" | awk '!seen[$0]++')
if [[ "${INSTALL_DEPS_DRY_RUN:-0}" == 1 ]]; then
  printf '%s\n' "${want[@]}"
  for p in "${pip[@]}"; do for one in $p; do echo "pip: $one"; done; done
  if [[ "${BENCH_DEPS:-0}" == 1 ]]; then echo "pip: img2dataset==1.47 (in /opt/img2dataset-1.47)"; fi
  exit 0
fi
pip_missing=()
for i in "${!pip[@]}"; do
  python3 -c "${pip_checks[$i]}" 2>/dev/null || pip_missing+=("${pip[$i]}")
done
if [[ ${#pip_missing[@]} -gt 0 ]] && ! python3 -m pip --version >/dev/null 2>&1; then want+=(python3-pip); fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "installing: ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The PyPI packages the sets want (moto's S3 server, webdataset, the placeholder decoders, pyspark: not
# packaged by Debian). A Debian python3 is "externally managed" (PEP 668): pip then needs
# --break-system-packages.
for p in "${pip_missing[@]}"; do
  echo "installing: $p (pip)" >&2
  read -ra names <<< "$p"   # a line may name two packages
  $SUDO python3 -m pip install -q "${names[@]}" 2>/dev/null || $SUDO python3 -m pip install -q --break-system-packages "${names[@]}"
done
# img2dataset for figure 24 of `make bench`, in a venv of its own: its dependencies (webdataset 0.2,
# pandas, pyarrow, opencv) would replace the versions the tests use.
I2D_VENV=/opt/img2dataset-1.47
if [[ "${BENCH_DEPS:-0}" == 1 ]] && ! "$I2D_VENV/bin/python3" -c 'import img2dataset' 2>/dev/null; then
  echo "installing: img2dataset==1.47 (pip, in $I2D_VENV)" >&2
  $SUDO python3 -m venv "$I2D_VENV"
  $SUDO "$I2D_VENV/bin/python3" -m pip install -q 'img2dataset==1.47'
fi
