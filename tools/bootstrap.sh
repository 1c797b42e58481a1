#!/usr/bin/env bash
# tools/bootstrap.sh - install whatever is missing and build. Used by setup.sh and test.sh.
#
# Debian packages come from apt-get (as root, or through sudo); Python packages go into the
# project virtualenv .venv (created here); the build goes to build/ (CMake + Ninja). The web
# viewer's page is bundled from web/ with npm (three.js and esbuild pinned by
# web/package-lock.json): with Node.js and npm present (Debian's nodejs/npm are installed when
# missing) `npm ci` + `npm run build` write web/dist/; without them the viewer still serves
# the OnlineViewer interface and its page only says how to build it (the browser tests fail).
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(
  build-essential cmake ninja-build pkg-config python3 python3-venv
  libode-dev libccd-dev
  libomniorb4-dev libcos4-dev omniidl omniorb-nameserver
  libxml2-dev libassimp-dev libpng-dev libjpeg-dev
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri libgbm1
  libcunit1-dev valgrind
  ccache   # compiles go through it (below): a fresh clone's build is then mostly cache hits
  clang libclang-rt-dev   # the fuzz harnesses (libFuzzer: -fsanitize=fuzzer, tools/fuzz.sh)
  chromium
)
# the viewer page's build tools, unless a Node.js is already installed (e.g. from NodeSource)
command -v node >/dev/null 2>&1 || DEB_PACKAGES+=(nodejs)
command -v npm >/dev/null 2>&1 || DEB_PACKAGES+=(npm)

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
# a virtualenv made before python/pyproject.toml named its package directory holds hrpsim
# through an import hook (see tests/e2e/test_packaging.py): install again, as a plain path entry
if ! .venv/bin/python -c "import omniORB, pytest, numpy, matplotlib, aiohttp, hrpsim, \
    hypothesis, atheris, cffi, dask, distributed, pandas, tqdm" 2>/dev/null ||
   compgen -G ".venv/lib/python3*/site-packages/__editable___hrpsim_*_finder.py" >/dev/null; then
  echo "== installing Python packages into .venv"
  .venv/bin/pip install -q --upgrade pip
  # hypothesis: the API state machines (tests/e2e/test_api_fuzz.py); atheris: the project
  # file fuzzer (tests/fuzz/fuzz_project.py); cffi (a dependency of python/pyproject.toml)
  # builds the local back end's extension (python/CMakeLists.txt), so it comes before cmake;
  # the extras dask (dask, distributed, tqdm: sweeps on a Dask cluster) and tables (pandas:
  # sweep tables) are optional for users, installed here so that their tests run
  .venv/bin/pip install -q pytest hypothesis atheris -e "python[dask,tables]"
fi

echo "== building (build/, log in build/build.log)"
# a launcher already chosen (CMAKE_C_COMPILER_LAUNCHER in the environment) is kept
if command -v ccache > /dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
fi
mkdir -p build
log=build/build.log
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$log" 2>&1 ||
  { cat "$log"; exit 1; }
ninja -C build >> "$log" 2>&1 || { tail -50 "$log"; exit 1; }
echo "== build ok"

# the viewer's web page: node modules from the lockfile, then the bundle
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  if [ ! -f web/node_modules/.package-lock.json ] ||
     [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
    echo "== installing the viewer's npm packages (npm ci, web/package-lock.json)"
    npm --prefix web ci --no-audit --no-fund --loglevel=error > build/npm.log 2>&1 ||
      { cat build/npm.log; exit 1; }
  fi
  npm --prefix web run build --silent > build/web.log 2>&1 || { cat build/web.log; exit 1; }
  echo "== viewer page built (web/dist/viewer.js)"
else
  echo "== WARNING: node/npm not found: the viewer's web page is not built (web/dist/); the"
  echo "   OnlineViewer server still works, its page says how to build it, and the browser"
  echo "   tests fail. Install Node.js and npm (Debian: apt-get install nodejs npm) and rerun."
fi
