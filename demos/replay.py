"""``qwop replay FILE``: replay a demo's session and say where it departs from the recording.

- ``--sim``: in the native simulator (``sim_env.replay_session``): the first update where
  the simulator departs from what the original did (a fidelity check on real human play).
- ``--browser [--game DIR]``: in the original in a browser, lock-step, in a fresh page (the
  default game folder unless ``--game``).
- ``--video out.gif`` (or ``.mp4`` with ffmpeg installed): the recorded run drawn frame by frame.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

import sim_env
from demos.format import Demo, load_demo
from sim_env.traces import Divergence, first_divergence


def replay_sim(demo: Demo) -> tuple[dict[str, np.ndarray], Divergence | None]:
    out = sim_env.replay_session(demo.events, initial_score_time=demo.initial_score_time)
    return out, first_divergence(demo.trace(), out)


def replay_browser(
    demo: Demo, game: str | None = None, backend: str = "playwright"
) -> tuple[dict[str, np.ndarray], Divergence | None]:
    from browser_env.game import BrowserGame

    with BrowserGame(game, backend=backend) as g:
        out = g.replay_session(demo.events, demo.initial_score_time)
    return out, first_divergence(demo.trace(), out)


def write_video(demo: Demo, path: str | Path, fps: int = 30, every: int = 2) -> Path:
    """Draw the recorded states (what the original did) to a GIF, or an MP4 with ffmpeg."""
    from sim_env.render import HEIGHT, WIDTH, render_state, save_gif

    path = Path(path)
    states = demo.arrays["state"][::every]
    if path.suffix.lower() == ".gif":
        a = demo.arrays
        labels = [
            f"{sc:.1f} m   {t:.1f} s" for sc, t in zip(a["score"][::every], a["score_time"][::every], strict=True)
        ]
        save_gif([render_state(s) for s in states], str(path), fps=max(1, fps // every), labels=labels)
        return path
    if path.suffix.lower() == ".mp4":
        ffmpeg = shutil.which("ffmpeg")
        if ffmpeg is None:
            raise RuntimeError("writing MP4 needs ffmpeg: apt-get install -y ffmpeg (or write a .gif)")
        cmd = [
            ffmpeg,
            "-y",
            "-loglevel",
            "error",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgb24",
            "-s",
            f"{WIDTH}x{HEIGHT}",
            "-r",
            str(max(1, fps // every)),
            "-i",
            "-",
            "-pix_fmt",
            "yuv420p",
            str(path),
        ]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
        assert proc.stdin is not None
        for s in states:
            proc.stdin.write(render_state(s).tobytes())
        proc.stdin.close()
        if proc.wait() != 0:
            raise RuntimeError(f"ffmpeg failed writing {path}")
        return path
    raise ValueError(f"video must end in .gif or .mp4, got {path.name}")


def outcome(run: dict[str, np.ndarray]) -> str:
    """How the run's last episode ended: finish time, fall, or where it stopped."""
    if not len(run["state"]):
        return "no update ran"
    t, score = float(run["score_time"][-1]), float(run["score"][-1])
    if run["jump_landed"][-1] and not run["fallen"][-1]:
        return f"finished 100 m in {t:.2f} s"
    if run["fallen"][-1]:
        return f"fell at {score:.1f} m after {t:.2f} s"
    return f"stopped at {score:.1f} m after {t:.2f} s"


def main_replay(file: str, sim: bool, browser: bool, game: str | None, backend: str, video: str | None) -> int:
    demo = load_demo(file)
    n = len(demo.events)
    status = 0
    if not (sim or browser or video):
        sim = True
    for where, wanted, run in (("simulator", sim, replay_sim), ("browser", browser, None)):
        if not wanted:
            continue
        out, div = run(demo) if run else replay_browser(demo, game, backend)
        same = f"identical to the recording over all {n} events" if div is None else f"departs at event {div}"
        print(f"{where}: {outcome(out)}; {same}")
        status = status or (0 if div is None else 1)
    if video:
        print(f"wrote {write_video(demo, video)}")
    return status
