"""The engine's own sin/cos (sim_env/cpp/engine/trig.cpp) equal glibc's two builds and Chromium's
Math.sin/Math.cos bit for bit, and the simulator reproduces every trace whatever variant the
host's C library would pick (glibc's build is switched with GLIBC_TUNABLES in a subprocess)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sim_env
from sim_env import libm
from sim_env.gaits import SHUFFLE, gait_keys
from tests.conftest import RUN_TRACES, SESSION_TRACES
from tests.support import REPO, portable_and_fast

ROOT = REPO
# What a CPU without FMA gets from glibc's sin/cos dispatch (its generic build).
GENERIC_HOST = {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4,-AVX"}
GRID = 8_000_000  # grid arguments; with the random and trace ones, over 10 million


def grid(n: int = GRID, lo: float = -8.0, hi: float = 8.0) -> np.ndarray:
    """Evenly spread arguments computed with exactly rounded IEEE operations, so that
    JavaScript computes the same doubles (lo + (hi - lo) * (i / n))."""
    return lo + (hi - lo) * (np.arange(n, dtype=np.float64) / n)


def trace_angles() -> np.ndarray:
    """Every angle the public traces give a body (the engine's sin/cos take body angles)."""
    out = []
    for p in [*RUN_TRACES, *SESSION_TRACES]:
        with np.load(p) as z:
            out.append(np.asarray(z["state"])[..., 2].ravel())
    return np.unique(np.concatenate(out)) if out else np.zeros(0)


def arguments() -> np.ndarray:
    rng = np.random.default_rng(7)
    tiny = np.exp(rng.uniform(-45.0, 0.0, 200_000)) * rng.choice([-1.0, 1.0], 200_000)
    parts = [
        grid(),
        rng.uniform(-7.0, 7.0, 1_000_000),
        rng.uniform(-3.0, 3.0, 500_000),  # the three range switches (0.126, 0.855, 2.43)
        rng.uniform(-1e5, 1e5, 300_000),  # large reductions
        tiny,
        np.array([0.0, -0.0, 0.126, -0.126, 0.855469, 2.426265, np.pi / 2, np.pi, 1e-300, 5e-324]),
        trace_angles(),
    ]
    return np.concatenate(parts)


def host_sincos(x: np.ndarray, tmp: Path, env: dict[str, str]) -> tuple[np.ndarray, np.ndarray, str]:
    """The C library's sin/cos of x in a fresh process with ``env``, and its variant."""
    src, dst = tmp / "x.npy", tmp / f"host{len(env)}.npz"
    np.save(src, x)
    code = (
        "import math, sys, numpy as np\n"
        "from sim_env import libm\n"
        "x = np.load(sys.argv[1])\n"
        "s = np.fromiter(map(math.sin, x.tolist()), float, len(x))\n"
        "c = np.fromiter(map(math.cos, x.tolist()), float, len(x))\n"
        "np.savez(sys.argv[2], s=s, c=c, variant=libm.host_variant())\n"
    )
    subprocess.run([sys.executable, "-c", code, str(src), str(dst)], check=True, env={**os.environ, **env}, cwd=ROOT)
    with np.load(dst) as z:
        return z["s"], z["c"], str(z["variant"])


def assert_same_bits(x: np.ndarray, got: np.ndarray, want: np.ndarray, what: str) -> None:
    bad = np.flatnonzero(got.view(np.int64) != want.view(np.int64))
    if bad.size:
        i = bad[0]
        pytest.fail(f"{what}: {bad.size} of {len(x)} differ; first x={x[i]!r}: ours {got[i]!r}, glibc {want[i]!r}")


@pytest.fixture(scope="module")
def args() -> np.ndarray:
    return arguments()


@pytest.mark.parametrize("variant", libm.VARIANTS)
def test_own_sincos_equals_glibc_build(variant: str, args: np.ndarray, tmp_path: Path) -> None:
    assert len(args) > 10_000_000
    env = GENERIC_HOST if variant == "generic" else {}
    hs, hc, host = host_sincos(args, tmp_path, env)
    if host != variant:
        pytest.skip(f"this host's glibc computes the {host!r} variant here, so it cannot check {variant!r}")
    s, c = libm.sincos(args, variant)
    assert_same_bits(args, s, hs, f"sin ({variant})")
    assert_same_bits(args, c, hc, f"cos ({variant})")


def test_sincos_table_is_what_its_generator_gives() -> None:
    pytest.importorskip("mpmath")
    tool = ROOT / "tools" / "gen_sincos_table.py"
    p = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_variants_differ_where_glibcs_builds_do() -> None:
    xs = libm.probe_arguments()
    assert libm.identify(*libm.sincos(xs, "fma")) == "fma"
    assert libm.identify(*libm.sincos(xs, "generic")) == "generic"
    s, c = libm.sincos(xs, "fma")
    assert libm.identify(s, c + 1e-12) == libm.NEITHER
    x = grid(400_000, -7.0, 7.0)
    share = np.mean(
        np.concatenate([a != b for a, b in zip(libm.sincos(x, "fma"), libm.sincos(x, "generic"), strict=True)])
    )
    assert 0.0002 < share < 0.002  # about 0.07% of values differ in the last bit


def test_traces_bit_exact_whatever_the_hosts_libm() -> None:
    """The fidelity tests in a process where glibc's sin/cos would be its generic build."""
    probe = subprocess.run(
        [sys.executable, "-c", "from sim_env import libm; print(libm.host_variant())"],
        env={**os.environ, **GENERIC_HOST},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == "generic", "GLIBC_TUNABLES did not switch the host's sin/cos"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/sim_env/test_fidelity.py",
            "-k",
            "bit_exact",
        ],
        env={**os.environ, **GENERIC_HOST},
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    # Every trace present replayed (a clone alone has no session trace: that parameter set is
    # empty, which pytest reports as one skip, and only then is a skip expected).
    summary = run.stdout.splitlines()[-1]
    assert f"{len(RUN_TRACES) + len(SESSION_TRACES)} passed" in summary, summary
    assert ("skipped" in summary) == (not SESSION_TRACES), summary


# Runs of the simulator whose bytes a digest covers: replays in both variants (one game,
# sin/cos four at a time in the joint waves), and a batch in lock step where the CPU allows.
_PATHS_DIGEST = """
import hashlib, numpy as np, sim_env
from sim_env import _core
h = hashlib.sha256()
rng = np.random.default_rng(17)
for variant in ("fma", "generic"):
    for _ in range(6):
        keys = np.repeat(rng.integers(0, 16, 300), 4).astype(np.int8)
        h.update(sim_env.replay(keys, sincos=variant)["state"].tobytes())
    b = sim_env.BatchSim(9, 2, sincos=variant)
    for _ in range(400):
        b.step(rng.integers(0, 16, 9).astype(np.int32))
        h.update(b.state.tobytes())
print(_core.hardware_fma(), sim_env.lockstep_available(), h.hexdigest())
"""


def test_portable_paths_give_the_same_bits() -> None:
    """What a CPU without FMA and AVX2 runs (std::fma, sin/cos one at a time, no lock step;
    QWOP_SIM_PORTABLE=1) gives the same bytes as this CPU's fast paths."""
    runs = {portable: out.split() for portable, out in portable_and_fast(_PATHS_DIGEST).items()}
    assert runs["1"][:2] == ["False", "False"], runs["1"]  # the switch took the fast paths away
    assert runs["0"][2] == runs["1"][2]


def test_generic_variant_is_another_exact_game() -> None:
    keys = gait_keys(SHUFFLE, 1800)
    fma = sim_env.replay(keys)
    gen = sim_env.replay(keys, sincos="generic")
    assert not np.array_equal(fma["state"], gen["state"])  # the last bits grow into a different run
    assert np.array_equal(gen["state"], sim_env.replay(keys, sincos="generic")["state"])
    sim = sim_env.QwopSim(sincos="generic")
    assert sim.sincos == "generic" and sim_env.QwopSim().sincos == "fma"
    sim.advance(keys[:600])
    assert np.array_equal(sim.body_state(), gen["state"][599])
    b = sim_env.BatchSim(2, 1, sincos="generic")
    for k in keys[:300]:
        b.step(np.array([k, k], dtype=np.int32))
    assert b.sincos == "generic" and np.array_equal(b.state[0], gen["state"][299])
    with pytest.raises(ValueError, match="sincos must be 'fma'"):
        sim_env.QwopSim(sincos="musl")


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian chromium (bash scripts/test.sh installs it)")
def test_chromium_math_equals_own_variant() -> None:
    """Chromium's Math.sin/Math.cos (never Node's) on the grid and every trace angle equal
    the engine's variant of the host's C library; compared by chunk hashes, then values."""
    pytest.importorskip("playwright")
    from browser_env.drivers import make_driver

    host = libm.host_variant()
    chunk = 1_000_000
    x = grid()
    s, c = libm.sincos(x, host)
    words = np.stack([s, c], axis=1).view(np.uint32).reshape(len(x) // chunk, -1).astype(np.uint64)
    weights = np.arange(1, words.shape[1] + 1, dtype=np.uint64)
    want = [int(((w * weights) & 0xFFFFFFFF).sum() & 0xFFFFFFFF) for w in words]
    js = """([n, chunk, lo, hi]) => {
      const out = [];
      const v = new Float64Array(2 * chunk);
      const w = new Uint32Array(v.buffer);
      for (let start = 0; start < n; start += chunk) {
        for (let i = 0; i < chunk; i++) {
          const x = lo + (hi - lo) * ((start + i) / n);
          v[2 * i] = Math.sin(x);
          v[2 * i + 1] = Math.cos(x);
        }
        let h = 0;
        for (let k = 0; k < w.length; k++) h = (h + Math.imul(w[k], k + 1)) >>> 0;
        out.push(h);
      }
      return out;
    }"""
    angles = trace_angles()
    driver = make_driver("playwright")
    try:
        driver.goto("about:blank", 30)
        got = driver.evaluate(js, [len(x), chunk, -8.0, 8.0])
        page = np.array(driver.evaluate("(xs) => xs.map((x) => [Math.sin(x), Math.cos(x)])", angles.tolist()))
    finally:
        driver.close()
    differing = [i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
    assert not differing, f"chunks of {chunk} arguments differing from the {host!r} variant: {differing}"
    if len(angles):
        ts, tc = libm.sincos(angles, host)
        assert_same_bits(angles, page[:, 0].copy(), ts, "Chromium sin on trace angles")
        assert_same_bits(angles, page[:, 1].copy(), tc, "Chromium cos on trace angles")
