#!/usr/bin/env bash
# The test job: install everything the suite needs (into .venv), then run it, lint included.
# The tier on the original game (pytest -m original) runs when the default game folder or
# $QWOP_GAME holds your copy of the original, and is skipped with the reason otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh test,train,browser,scale
PY=.venv/bin/python
echo "== ruff"
"$PY" -m ruff check .
echo "== layers (import-linter: nothing imports upward; pyproject.toml's contracts)"
.venv/bin/lint-imports --no-cache
echo "== docs (mkdocs build --strict: a broken link or a page left out fails)"
site=$(mktemp -d)
NO_MKDOCS_2_WARNING=1 "$PY" -m mkdocs build --strict --quiet --site-dir "$site"
rm -rf "$site"
echo "== C++ unit tests (CTest: the engine and game layers on their own)"
cmake -S . -B build/ctest -DQWOP_PYTHON_MODULE=OFF -DQWOP_CPP_TESTS=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/ctest -j "$(nproc)" >/dev/null
ctest --test-dir build/ctest --output-on-failure
echo "== benchmark smoke runs"
"$PY" -m agents.bench.sim --quick --vec
"$PY" -m agents.bench.browser --quick
"$PY" -m agents.bench.search --quick
"$PY" -m agents.bench.search --quick --guide
"$PY" -m agents.bench.policy_labels --quick
"$PY" -m agents.bench.realtime --quick   # one run idle, one with a busy core, in the simulator's page
ttr=$(mktemp -d)  # the record recipe as it trains: actor and learner side by side, 12 s
"$PY" -m agents.bench.learning --to-record --minutes 0.2 --config agents/recipes/record.toml --out "$ttr"
rm -rf "$ttr"
echo "== pytest, every tier (the fast one alone: pytest; see docs/setup.md)"
set +e
"$PY" -m pytest -q -m "" "$@"
rc=$?
if [ "$rc" = 0 ] && [ $# = 0 ]; then
  # A clone with no reference data beside it tests fidelity on the shipped fixtures: run that
  # path too, so it stays green where users meet it.
  echo "== pytest, as a clone alone (no reference data): fidelity and sin/cos"
  QWOP_REFERENCE=none CI= "$PY" -m pytest -q -m "" -p no:cacheprovider tests/sim_env/test_fidelity.py tests/sim_env/test_trig.py
  rc=$?
fi
set -e
if [ "$rc" = 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$rc"
