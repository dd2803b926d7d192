"""Run as a child process by test_snapshot_fuzz.py: restores damaged snapshots and, where one is
accepted, steps it. The parent reads its last line; a crash shows as the child's death by a signal.

    python snapshot_fuzz_child.py MODE COUNT SEED
MODE: "raw" (damage as it comes: each must be refused) or "resealed" (damage with a matching
checksum, which only the structural checks stand between and the engine).
"""

from __future__ import annotations

import json
import sys

import numpy as np
from sim_env._core import testing

import sim_env


def real_snapshots(rng: np.random.Generator) -> list[bytes]:
    """States of real games: the start, running, fallen, after a reset, on the intro screen."""
    out = [sim_env.QwopSim().snapshot(), sim_env.QwopSim(first_click=False).snapshot()]
    sim = sim_env.QwopSim()
    for t in range(1500):
        if t % 500 == 499:
            sim.reset(int(rng.integers(16)))
        else:
            sim.update(int(rng.integers(16)))
        if t % 97 == 0:
            out.append(sim.snapshot())
    return out


def damaged(snap: bytes, rng: np.random.Generator) -> bytes:
    b = bytearray(snap)
    kind = int(rng.integers(4))
    if kind == 0:  # a random tail after byte 64
        cut = int(rng.integers(64, len(b)))
        b[cut:] = rng.integers(0, 256, len(b) - cut, dtype=np.uint8).tobytes()
    elif kind == 1:  # a few bytes flipped
        for i in rng.integers(32, len(b), int(rng.integers(1, 9))):
            b[int(i)] ^= int(rng.integers(1, 256))
    elif kind == 2:  # cut short
        b = b[: int(rng.integers(0, len(b)))]
    else:  # one small integer field set to a value near its range's ends (indices, counts)
        i = int(rng.integers(32, len(b)))
        b[i] = int(rng.choice([0x7F, 0x80, 0xFF, 0x30, 0x13, 0x0C, 0x24]))
    return bytes(b)


def main() -> None:
    mode, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(seed)
    snaps = real_snapshots(rng)
    refused = accepted = unchanged = 0
    for _ in range(count):
        original = snaps[int(rng.integers(len(snaps)))]
        bad = damaged(original, rng)
        if mode == "resealed":
            bad = testing.reseal_snapshot(bad)
        if bad == original:
            unchanged += 1
            continue
        sim = sim_env.QwopSim()
        try:
            sim.restore(bad)
        except ValueError:
            refused += 1
            continue
        accepted += 1
        if mode == "raw":
            break  # damage got past the checksum: the parent fails the test
        try:
            for _ in range(30):  # what an accepted state must survive: updates, a snapshot, a reset
                sim.update(int(rng.integers(16)))
            sim_env.QwopSim().restore(sim.snapshot())
            sim.reset(0)
        except ValueError:
            pass  # refused at a step (a state past the engine's capacity): an error, not a crash
    print(json.dumps({"refused": refused, "accepted": accepted, "unchanged": unchanged}), flush=True)


if __name__ == "__main__":
    main()
