#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian machine (run as root, or with sudo):
# the C++ toolchain, then this package in editable mode with the given extras.
#   bash scripts/install.sh [EXTRAS]      e.g.  bash scripts/install.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

apt_packages=(build-essential cmake)
if [[ ",$extras," == *",browser,"* ]]; then
  apt_packages+=(chromium chromium-driver)
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

PY="${PYTHON:-python3}"
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "error: Python 3.11 or newer is needed (found $("$PY" --version 2>&1)); set PYTHON=/path/to/python3.11" >&2
  exit 1
fi
spec="."
if [ -n "$extras" ]; then spec=".[${extras}]"; fi
if [[ ",$extras," == *",train,"* ]]; then
  # A pinned torch first: on this machine class the CPU wheel of this version is on disk.
  echo "== pip install torch==${QWOP_TORCH_VERSION:-2.13.0}"
  "$PY" -m pip install -q --disable-pip-version-check "torch==${QWOP_TORCH_VERSION:-2.13.0}"
fi
echo "== pip install -e $spec (builds the C++ simulator)"
"$PY" -m pip install -q --disable-pip-version-check -e "$spec"
if [[ ",$extras," == *",browser,"* ]]; then
  echo "== npm ci (planck.js for the stand-in test page)"
  npm ci --silent --no-audit --no-fund --prefix adapter_js/standin
fi
