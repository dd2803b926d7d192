#!/usr/bin/env bash
# The main job: install, then run the embedded simulator (no game files needed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec "${PYTHON:-python3}" -m sim_env.demo "$@"
