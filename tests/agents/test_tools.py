"""Command-line tools: the divergence finder (``qwop diverge``) and the benchmark smoke run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sim_env
from agents.cli import main as qwop
from sim_env.traces import first_divergence, load_trace, simulate
from tests.support import REPO


def test_first_divergence_names_update_and_quantity(tmp_path: Path) -> None:
    keys = np.full(120, 9, dtype=np.int8)
    run = sim_env.replay(keys)
    ref = {k: np.array(v, copy=True) for k, v in run.items()}
    ref["state"][57, 4, 5] = np.nextafter(ref["state"][57, 4, 5], np.inf)  # one ulp, leftFoot omega
    div = first_divergence(ref, run)
    assert div is not None and div.update == 57 and div.quantity == "leftFoot.omega"
    assert first_divergence(ref, run, tolerance=1e-9) is None
    ref2 = {k: np.array(v, copy=True) for k, v in run.items()}
    ref2["score"][80] = -ref2["score"][80] if ref2["score"][80] == 0 else ref2["score"][80] + 0.1
    assert first_divergence(ref2, run).quantity == "score"


def test_diverge_cli_reports_perturbed_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys = np.full(90, 6, dtype=np.int8)
    run = sim_env.replay(keys)
    bad = dict(run)
    bad["state"] = run["state"].copy()
    bad["state"][33, 0, 1] += 1e-7
    path = tmp_path / "perturbed.npz"
    np.savez(path, **bad)
    assert qwop(["diverge", str(path)]) == 1
    out = capsys.readouterr().out
    assert "update 33" in out and "torso.y" in out
    good = tmp_path / "good.npz"
    np.savez(good, **run)
    assert qwop(["diverge", str(good)]) == 0
    assert "identical over all" in capsys.readouterr().out


def test_diverge_on_reference_trace(reference: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert qwop(["diverge", str(reference / "traces" / "hold_qp.npz")]) == 0
    out = capsys.readouterr().out
    assert "identical" in out and "internals identical" in out


def test_load_trace_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="trace file not found"):
        load_trace(tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"is not a trace.*not a \.npz archive"):
        load_trace(junk)
    partial = tmp_path / "partial.npz"
    np.savez(partial, keys=np.zeros(3, dtype=np.int8))
    with pytest.raises(ValueError, match="lacks the arrays"):
        load_trace(partial)
    assert simulate({"keys": np.zeros(3, dtype=np.int8)})["state"].shape == (3, 12, 6)


def _run(*args: str) -> str:
    res = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.mark.slow
def test_bench_smoke() -> None:
    out = _run("-m", "agents.bench.sim", "--quick")
    assert "updates/s" in out and "memory per game" in out


def test_results_plots_are_drawn_from_the_data(tmp_path: Path) -> None:
    out = _run(str(REPO / "tools" / "plot_results.py"), "--out", str(tmp_path))
    for name in ("learning.png", "search.png", "splits.png", "realtime.png"):
        png = tmp_path / name
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and name in out
