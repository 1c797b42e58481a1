#!/usr/bin/env bash
# tools/bootstrap.sh - install whatever is missing and build. Used by setup.sh and test.sh.
#
# Debian packages come from apt-get (as root, or through sudo); Python packages go into the
# project virtualenv .venv (created here); the build goes to build/ (CMake + Ninja).
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(
  build-essential cmake ninja-build pkg-config python3 python3-venv
  libode-dev libccd-dev
  libomniorb4-dev libcos4-dev omniidl omniorb-nameserver
  libxml2-dev libassimp-dev libpng-dev libjpeg-dev
  libcunit1-dev valgrind
)

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -x .venv/bin/python ]; then
  echo "== creating the Python virtualenv .venv"
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import omniORB, pytest, numpy, matplotlib, hrpsim" 2>/dev/null; then
  echo "== installing Python packages into .venv"
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q pytest -e python
fi

echo "== building (build/, log in build/build.log)"
mkdir -p build
log=build/build.log
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$log" 2>&1 || { cat "$log"; exit 1; }
ninja -C build >> "$log" 2>&1 || { tail -50 "$log"; exit 1; }
echo "== build ok"
