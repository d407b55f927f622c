#!/usr/bin/env bash
# scripts/install-deb.sh DEB: installs the imgfetch package DEB (scripts/make-deb.sh) with `dpkg -i`, first
# installing from apt what its Depends and Recommends name (the libraries it loads; ca-certificates,
# for https) when some are missing (after `apt-get update`, as a fresh debian:12-slim has no package
# lists). Run as root, or with sudo available.
# The Containerfile's run stage and the package test (Tests/EndToEndTests/PackageTests.swift) both run
# it, so the image installs the package exactly as the test does. `apt install ./DEB` does the same.
set -euo pipefail
[[ $# -eq 1 && -f $1 ]] || { echo "usage: scripts/install-deb.sh DEB" >&2; exit 2; }
deb=$1
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
depends=$(dpkg-deb --field "$deb" Depends)
recommends=$(dpkg-deb --field "$deb" Recommends)
depends+=${recommends:+, $recommends}
# `apt-get satisfy --simulate` prints an Inst line per package it would install, and fails when the
# package lists do not know one.
if ! plan=$(apt-get satisfy --simulate "$depends" 2>/dev/null) || grep -q '^Inst ' <<<"$plan"; then
  echo "installing the libraries imgfetch needs: $depends" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get satisfy -y -qq --no-install-recommends "$depends" >/dev/null
fi
$SUDO dpkg -i "$deb"
