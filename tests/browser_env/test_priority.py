"""The real-time player's CPU priority: raised for itself and for the sessions its browser runs
in where the system allows it (root here), refused in one sentence where it does not, and put
back when it ends. Run in child processes, so that the test process keeps its own priority."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from browser_env.priority import read_autogroup
from tests.support import REPO

ROOT = REPO

# A child that starts a grandchild in a session of its own (as Chromium starts), raises the
# priority around it and prints what it saw.
PROBE = r"""
import json, os, subprocess, sys
from browser_env.priority import RealtimePriority, read_autogroup
enabled = sys.argv[1] == "raise"
before = os.getpriority(os.PRIO_PROCESS, 0)
with RealtimePriority(enabled=enabled) as prio:
    kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], start_new_session=True)
    prio.cover_children()
    seen = {
        "nice_inside": os.getpriority(os.PRIO_PROCESS, 0),
        "kid_nice": os.getpriority(os.PRIO_PROCESS, kid.pid),
        "mine_inside": read_autogroup(os.getpid()),
        "kid_inside": read_autogroup(kid.pid),
        "refused": prio.refused,
        "described": prio.describe(),
    }
seen["kid_after"] = read_autogroup(kid.pid)
kid.kill()
seen.update(before=before, nice_after=os.getpriority(os.PRIO_PROCESS, 0), mine_after=read_autogroup(os.getpid()))
print(json.dumps(seen))
"""


def _probe(mode: str, prefix: tuple[str, ...] = (), preexec=None) -> dict:
    out = subprocess.run(
        [*prefix, sys.executable, "-c", PROBE, mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,  # an autogroup of its own: the test run's is left alone
        preexec_fn=preexec,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


needs_autogroups = pytest.mark.skipif(
    read_autogroup(os.getpid()) is None, reason="this kernel has no scheduler autogroups (/proc/PID/autogroup)"
)


@needs_autogroups
def test_raised_for_the_player_and_the_session_its_browser_starts_then_put_back():
    seen = _probe("raise")
    if os.geteuid() != 0:
        pytest.skip("raising a priority needs root or CAP_SYS_NICE (the refusal is tested apart)")
    assert seen["refused"] is None, seen
    assert seen["nice_inside"] == seen["before"] - 10
    assert seen["kid_nice"] == seen["before"] - 10  # inherited
    assert seen["mine_inside"][1] == -10 and seen["kid_inside"][1] == -10
    assert seen["mine_inside"][0] != seen["kid_inside"][0]  # two sessions, both raised
    assert "raised by 10" in seen["described"] and "2 sessions" in seen["described"]
    assert seen["nice_after"] == seen["before"]
    assert seen["mine_after"][1] == 0 and seen["kid_after"][1] == 0


@needs_autogroups
def test_where_raising_is_not_allowed_nothing_changes_and_the_reason_is_given():
    def no_nice_limit() -> None:  # what an ordinary user has: RLIMIT_NICE 0
        import resource

        resource.setrlimit(resource.RLIMIT_NICE, (0, 0))

    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:  # root as an ordinary user: without CAP_SYS_NICE
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root, and setpriv (util-linux) is not there to drop CAP_SYS_NICE")
        prefix = (setpriv, "--inh-caps=-sys_nice", "--bounding-set=-sys_nice")
    seen = _probe("raise", prefix, no_nice_limit)
    assert seen["refused"] and "root or CAP_SYS_NICE" in seen["refused"]
    assert seen["nice_inside"] == seen["before"] and seen["mine_inside"][1] == 0 and seen["kid_inside"][1] == 0
    assert seen["described"].startswith("normal priority: ")


@needs_autogroups
def test_normal_priority_when_asked():
    seen = _probe("normal")
    assert seen["nice_inside"] == seen["before"] and seen["kid_inside"][1] == 0
    assert seen["described"] == "normal priority (--priority normal)"
