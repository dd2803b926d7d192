"""The simulator reproduces every reference trace of the original game bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim_env.traces import first_detail_divergence, first_divergence, load_detail, load_trace, simulate
from tests.conftest import DETAIL_FILES, RUN_TRACES, SESSION_TRACES


def _ids(paths: list[Path]) -> list[str]:
    return [p.name.split(".")[0] for p in paths]


def test_reference_traces_present(reference: Path) -> None:
    assert RUN_TRACES, f"no run traces under {reference / 'traces'}"
    assert SESSION_TRACES, f"no session traces under {reference / 'traces'}"


def _check(path: Path) -> None:
    ref = load_trace(path)
    run = simulate(ref)
    np.testing.assert_array_equal(run["initial"], ref["initial"])
    assert len(run["state"]) == len(ref["state"]), "run length (game end) differs"
    # Within 1e-9 everywhere, and in fact bit for bit.
    np.testing.assert_allclose(run["state"], ref["state"], rtol=0, atol=1e-9)
    div = first_divergence(ref, run)
    assert div is None, f"{path.name}: {div}"
    for name in ("fallen", "game_ended", "jump_landed"):
        np.testing.assert_array_equal(run[name], ref[name], err_msg=name)
    for name in ("score_time", "score"):
        np.testing.assert_array_equal(run[name].view(np.uint64), ref[name].view(np.uint64), err_msg=name)


@pytest.mark.parametrize("path", RUN_TRACES, ids=_ids(RUN_TRACES))
def test_run_trace_bit_exact(path: Path) -> None:
    _check(path)


@pytest.mark.parametrize("path", SESSION_TRACES, ids=_ids(SESSION_TRACES))
def test_session_trace_bit_exact(path: Path) -> None:
    _check(path)


@pytest.mark.parametrize("path", DETAIL_FILES, ids=_ids(DETAIL_FILES))
def test_engine_internals_match_detail(path: Path) -> None:
    keys = load_trace(path.with_name(path.name.replace(".detail.json.gz", ".npz")))["keys"]
    found = first_detail_divergence(keys, load_detail(path))
    assert found is None, f"update {found[0]}, {found[1]}: expected {found[2]!r}, got {found[3]!r}"
