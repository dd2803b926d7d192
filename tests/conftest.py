"""Shared fixtures: where the reference measurements are, and their trace files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sim_env.traces import reference_dir

REFERENCE = reference_dir()
# A few short public traces of the original, shipped so that a clone alone tests fidelity;
# the full set (and the engine-internals files) come from the reference data when present.
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "traces"


def _traces(pattern: str) -> list[Path]:
    if REFERENCE is None:
        return sorted(FIXTURES.glob(pattern))
    return sorted((REFERENCE / "traces").glob(pattern))


# Every trace file present is tested, so traces added beside the published ones (of the
# same kinds) are picked up without editing the tests.
RUN_TRACES = [p for p in _traces("*.npz") if not p.name.startswith("session_")]
SESSION_TRACES = _traces("session_*.npz")
DETAIL_FILES = _traces("*.detail.json.gz")


@pytest.fixture(scope="session")
def reference() -> Path:
    if REFERENCE is None:
        msg = "reference data not found: put it at ../shared/qwop-reference or set QWOP_REFERENCE"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return REFERENCE


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("CI") and REFERENCE is None:
        raise pytest.UsageError("CI run without ../shared/qwop-reference: the fidelity tests cannot run")
