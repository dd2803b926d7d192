#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian machine (run as root, or with sudo): the
# Debian packages, then a project virtual environment in .venv with this package (editable,
# which builds the C++ simulator) and the given extras. Works with Debian's own python3
# (which refuses system-wide pip installs, PEP 668) and with any Python 3.11 or newer.
#   bash scripts/install.sh [EXTRAS]      e.g.  bash scripts/install.sh test,train,browser
#   PYTHON=/path/to/python3.12 bash scripts/install.sh     (the Python the venv is made from)
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
PY="${PYTHON:-python3}"

apt_packages=(build-essential cmake)
if ! "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1; then apt_packages+=(python3-venv); fi
if [[ ",$extras," == *",browser,"* ]]; then
  # Debian's Chromium and its driver (browser downloads are not possible everywhere); Xvfb and
  # xdotool for recording in a visible browser on a headless machine (and its tests).
  apt_packages+=(chromium chromium-driver xvfb xdotool)
  command -v npm >/dev/null 2>&1 || apt_packages+=(nodejs npm)
fi
if [ -n "${QWOP_APT_EXTRA:-}" ]; then read -r -a more <<<"$QWOP_APT_EXTRA"; apt_packages+=("${more[@]}"); fi
missing=()
for p in "${apt_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "error: Python 3.11 or newer is needed (found $("$PY" --version 2>&1)); set PYTHON=/path/to/python3.11" >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  echo "== creating the project virtual environment .venv (from $("$PY" --version 2>&1))"
  "$PY" -m venv .venv
fi
VPY=.venv/bin/python
spec="."
if [ -n "$extras" ]; then spec=".[${extras}]"; fi
if [[ ",$extras," == *",train,"* ]]; then
  # torch is pinned to the version whose CPU-only wheel this machine class keeps on disk: an
  # unpinned torch would pull a CUDA build of several GB. Set QWOP_TORCH_VERSION to change it.
  echo "== pip install torch==${QWOP_TORCH_VERSION:-2.13.0}"
  "$VPY" -m pip install -q --disable-pip-version-check "torch==${QWOP_TORCH_VERSION:-2.13.0}"
fi
echo "== pip install -e $spec (builds the C++ simulator)"
"$VPY" -m pip install -q --disable-pip-version-check -e "$spec"
if [[ ",$extras," == *",browser,"* ]]; then
  echo "== npm ci (planck.js for the stand-in test page)"
  npm ci --silent --no-audit --no-fund --prefix adapter_js/standin
fi
echo "== ready: run the harness with .venv/bin/qwop (or: source .venv/bin/activate)"
