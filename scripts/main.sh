#!/usr/bin/env bash
# The main job: install (into .venv), then train a small agent on the embedded simulator for a
# few minutes (no game files, no GPU needed), evaluate it and draw its best run as a GIF.
#   bash scripts/main.sh [MINUTES]      (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh train
minutes="${1:-3}"
name="main-$(date +%Y%m%d-%H%M%S)"
.venv/bin/python -m agents.cli train --minutes "$minutes" --name "$name" --gif "runs/$name/best_run.gif"
echo "TensorBoard logs: .venv/bin/tensorboard --logdir runs/$name/tb"
