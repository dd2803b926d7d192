#!/usr/bin/env bash
# The test job: install everything the suite needs, then run it, lint included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh test,train,browser
PY="${PYTHON:-python3}"
echo "== ruff"
"$PY" -m ruff check .
echo "== benchmark smoke run"
"$PY" -m sim_env.bench --quick --vec
"$PY" -m browser_env.bench --quick
echo "== pytest"
set +e
"$PY" -m pytest -q "$@"
rc=$?
set -e
if [ "$rc" = 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$rc"
