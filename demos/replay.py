"""``qwop replay FILE``: replay a demo's session and say where it departs from the recording.

- ``--sim``: in the native simulator (``sim_env.replay_session``): the first update where
  the simulator departs from what the original did (a fidelity check on real human play).
- ``--browser [--game DIR]``: in the original in a browser, lock-step, in a fresh page (the
  default game folder unless ``--game``).
- ``--video out.gif`` (or ``.mp4``): with ``--browser``, the original's own canvas captured as it
  replays; otherwise the recorded states drawn frame by frame.
- ``--show`` (with ``--browser``): a visible window at the game's own pace, to watch the run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

import sim_env
from demos.format import Demo, load_demo
from sim_env.errors import UserInputError
from sim_env.files import check_out_folders, write_new_from_path
from sim_env.render import render_state, save_gif
from sim_env.spec import UPDATES_PER_SECOND
from sim_env.traces import SPLIT_M, Divergence, first_divergence, split_times


def replay_sim(demo: Demo) -> tuple[dict[str, np.ndarray], Divergence | None]:
    out = sim_env.replay_session(demo.events, initial_score_time=demo.initial_score_time)
    return out, first_divergence(demo.trace(), out)


def replay_browser(
    demo: Demo,
    game: str | None = None,
    backend: str = "playwright",
    show: bool = False,
    video: str | Path | None = None,
    every: int = 2,
) -> tuple[dict[str, np.ndarray], Divergence | None]:
    """The session in the original, lock-step. ``show``: in a visible window at the game's own
    pace (30 updates per second). ``video``: the page's own canvas captured every ``every``
    updates (and at the end), written as a GIF or an MP4."""
    from tqdm import tqdm

    from browser_env.game import BrowserGame
    from browser_env.watch import Watch

    if video is not None:
        video_kind(video)
    with BrowserGame(game, backend=backend, headless=not show) as g:
        bar = tqdm(total=int((np.asarray(demo.events) < 16).sum()), desc="replaying in the browser", unit=" updates")
        if show or video is not None:
            g.watch = Watch(UPDATES_PER_SECOND if show else None, every if video is not None else 0, progress=bar)
        try:
            out = g.replay_session(demo.events, demo.initial_score_time)
            if g.watch is not None:
                g.watch.last_frame(g)
        finally:
            bar.close()
        note = g.sincos_note()
        frames = g.watch.frames if g.watch is not None else []
    if note:
        print(f"warning: {note}", file=sys.stderr)
    if video is not None:
        print(f"wrote {write_frames(frames, video, UPDATES_PER_SECOND / every)} (the original's canvas)")
    return out, first_divergence(demo.trace(), out)


def video_kind(path: str | Path) -> str:
    """``.gif`` or ``.mp4``, from a video path that is new and in a writable folder; else a UserInputError."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise UserInputError(f"the video must end in .gif or .mp4, got {Path(path).name}")
    check_out_folders(str(path))
    return suffix


def write_frames(frames: Any, path: str | Path, fps: float, labels: list[str] | None = None) -> Path:
    """RGB frames (all one size) as a GIF or an MP4 that plays at ``fps``."""
    path = Path(path)
    if video_kind(path) == ".gif":
        return save_gif(list(frames), str(path), fps=fps, labels=labels)
    try:
        import imageio_ffmpeg
    except ImportError:
        raise UserInputError(
            "writing MP4 needs imageio-ffmpeg: .venv/bin/pip install imageio-ffmpeg (the train extra has it), "
            "or write a .gif"
        ) from None
    def produce(tmp: Path) -> None:
        writer: Any = None
        try:
            for frame in frames:
                if writer is None:
                    h, w = frame.shape[:2]
                    writer = imageio_ffmpeg.write_frames(str(tmp), (w, h), fps=fps, macro_block_size=1)
                    writer.send(None)  # start ffmpeg
                writer.send(np.ascontiguousarray(frame))
        finally:
            if writer is not None:
                writer.close()

    return write_new_from_path(path, produce)


def write_video(demo: Demo, path: str | Path, fps: int = UPDATES_PER_SECOND, every: int = 2) -> Path:
    """Draw the recorded states (what the original did) to a GIF or an MP4 at the game's pace,
    showing progress while drawing. The last update is always drawn: a run's end is its point."""
    from tqdm import tqdm

    video_kind(path)
    a = demo.arrays
    n = len(a["state"])
    rows = list(range(0, n, every))
    if n and rows[-1] != n - 1:
        rows.append(n - 1)
    frames = (render_state(a["state"][i]) for i in tqdm(rows, desc=f"drawing {Path(path).name}", unit=" frames"))
    labels = [f"{a['score'][i]:.1f} m   {a['score_time'][i]:.1f} s" for i in rows]
    return write_frames(frames, path, fps / every, labels if Path(path).suffix.lower() == ".gif" else None)


def outcome(run: dict[str, np.ndarray]) -> str:
    """How the run's last episode ended: finish time, fall, or where it stopped."""
    if not len(run["state"]):
        return "no update ran"
    t, score = float(run["score_time"][-1]), float(run["score"][-1])
    how = " (fell over the line)" if run["fallen"][-1] else ""
    if sim_env.finished_100m(run["game_ended"][-1], run["jump_landed"][-1], score):
        return f"finished 100 m in {t:.2f} s{how}"
    if run["jump_landed"][-1]:
        return f"ended the final jump at {score:.1f} m after {t:.2f} s{how}"
    if run["fallen"][-1]:
        return f"fell at {score:.1f} m after {t:.2f} s"
    return f"stopped at {score:.1f} m after {t:.2f} s"


def format_splits(splits: list[float]) -> str:
    """Cumulative split times with each 10 m's own time: '6.83 (6.83), 11.07 (4.23), ...'."""
    parts, before = [], 0.0
    for t in splits:
        parts.append(f"{t:.2f} ({t - before:.2f})")
        before = t
    return ", ".join(parts) + " s"


def main_replay(
    file: str, sim: bool, browser: bool, game: str | None, backend: str, video: str | None, show: bool = False
) -> int:
    """``qwop replay``. With ``--browser``, ``--video`` captures the original's canvas and
    ``--show`` plays it in a window at the game's pace; without, the video is drawn from the
    recorded states."""
    if show and not browser:
        raise UserInputError("--show plays the replay in a visible browser window: add --browser")
    if video:
        video_kind(video)
    demo = load_demo(file)
    n = len(demo.events)
    status = 0
    if not (sim or browser or video):
        sim = True
    for where, wanted, run in (("simulator", sim, replay_sim), ("browser", browser, None)):
        if not wanted:
            continue
        out, div = run(demo) if run else replay_browser(demo, game, backend, show, video)
        same = f"identical to the recording over all {n} events" if div is None else f"departs at event {div}"
        print(f"{where}: {outcome(out)}; {same}")
        splits = split_times(out)
        if splits:
            print(f"  {where} split times every {SPLIT_M} m: {format_splits(splits)}")
        status = status or (0 if div is None else 1)
    if video and not browser:
        print(f"wrote {write_video(demo, video)} (drawn from the recorded states)")
    return status
