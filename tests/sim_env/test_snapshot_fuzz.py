"""Damaged snapshots never crash the simulator: thousands of them, restored and stepped in a
child process that must end normally (a crash would kill it by a signal), each refused with a
ValueError where its bytes do not match their checksum, and never able to overrun memory
where they do (the structural checks)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sim_env._core import testing

import sim_env

CHILD = Path(__file__).with_name("snapshot_fuzz_child.py")


def _run_child(mode: str, count: int, seed: int) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, str(CHILD), mode, str(count), str(seed)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"the child died (code {done.returncode}): {done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_damaged_snapshots_are_always_refused() -> None:
    counts = _run_child("raw", 4000, seed=11)
    assert counts["accepted"] == 0, counts
    assert counts["refused"] + counts["unchanged"] == 4000


@pytest.mark.parametrize("seed", [21, 22])
def test_snapshots_damaged_past_their_checksum_never_crash(seed: int) -> None:
    counts = _run_child("resealed", 6000, seed=seed)
    # Both paths are taken: the structural checks refuse some, the engine steps the rest.
    assert counts["refused"] > 1000 and counts["accepted"] > 1000, counts


def test_a_refused_snapshot_leaves_the_game_as_it_was() -> None:
    sim = sim_env.QwopSim()
    for k in (1, 2, 4, 8) * 20:
        sim.update(k)
    before = sim.snapshot()
    bad = bytearray(before)
    bad[-100] ^= 0xFF
    with pytest.raises(ValueError, match="checksum"):
        sim.restore(bytes(bad))
    assert sim.snapshot() == before


def test_a_consistent_looking_index_out_of_range_is_named() -> None:
    """A body's list link set past the last body, with the checksum made to match."""
    snap = sim_env.QwopSim().snapshot()
    refused = 0
    for i in range(32, len(snap)):
        bad = bytearray(snap)
        bad[i] = 0x7F  # 127: past every slot of every pool
        try:
            sim_env.QwopSim().restore(testing.reseal_snapshot(bytes(bad)))
        except ValueError as exc:
            assert "snapshot is damaged" in str(exc)
            refused += 1
    assert refused > 100
