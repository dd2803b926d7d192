"""The command works on the core install (numpy and gymnasium): its help, the simulator's
commands, and one line naming the extra for a command that needs one."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest

from sim_env.extras import EXTRAS
from tests.support import RECORDS, REPO

ALL = "browser,train,scale"


def _qwop_without(extras: str, *args: str, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "tests" / "without_extras.py"), extras, "--", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "HOME": str(REPO)},
        stdin=subprocess.DEVNULL,
    )


def test_the_extras_table_is_pyprojects() -> None:
    """sim_env.extras names the import names of pyproject.toml's optional dependencies."""
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    import_name = {"stable-baselines3": "stable_baselines3", "sb3-contrib": "sb3_contrib", "pillow": "PIL"}
    for extra, mods in EXTRAS.items():
        names = {re.split(r"[<>=!~ \[;]", r, maxsplit=1)[0].lower() for r in declared[extra]}
        assert set(mods) == {import_name.get(n, n.replace("-", "_")) for n in names}, extra


def test_every_help_on_the_core_install() -> None:
    top = _qwop_without(ALL, "--help")
    assert top.returncode == 0, top.stderr
    commands = re.search(r"\{([a-z,-]+)\}", top.stdout).group(1).split(",")
    assert "search" in commands and "train" in commands
    for c in commands:
        p = _qwop_without(ALL, c, "--help")
        assert p.returncode == 0 and "usage:" in p.stdout, (c, p.stderr[-1500:])


def test_search_and_replay_on_the_core_install(tmp_path) -> None:
    p = _qwop_without(ALL, "search", "--updates", "20000", "--out", str(tmp_path / "run.npz"), cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr[-1500:]
    record = sorted(RECORDS.glob("guided_*.npz"))[0]
    p = _qwop_without(ALL, "replay", str(record), cwd=str(tmp_path))
    assert p.returncode == 0 and "identical to the recording" in p.stdout, p.stderr[-1500:]


@pytest.mark.parametrize(
    ("missing", "args", "says"),
    [
        ("train", ["train", "--minutes", "1"], "qwop train needs the train extra"),
        ("train", ["eval"], "qwop eval needs the train extra"),
        ("train", ["search", "--guide", "--updates", "10"], "qwop search --guide needs the train extra"),
        ("train", ["search", "--updates", "10", "--gif", "x.gif"], "qwop search --gif needs the train extra"),
        ("browser", ["play"], "qwop play needs the browser extra"),
        ("browser", ["record"], "qwop record needs the browser extra"),
        ("browser", ["eval", "--browser"], "qwop eval needs the browser extra"),
        ("browser", ["replay", "x.npz", "--browser"], "qwop replay needs the browser extra"),
        ("scale", ["train", "--ray", "local"], "qwop train --ray needs the scale extra"),
    ],
)
def test_a_command_names_the_extra_it_needs(tmp_path, missing: str, args: list[str], says: str) -> None:
    p = _qwop_without(missing, *args, cwd=str(tmp_path))
    assert p.returncode == 2, p.stderr[-1500:]
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr[-1500:]
    assert says in p.stderr and f"scripts/install.sh {missing}" in p.stderr, p.stderr
    assert not any(tmp_path.iterdir()), "nothing is written before the check"
