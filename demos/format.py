"""Demo files: a recorded session of human play, in the reference trace format plus metadata.

See ``demos/FORMAT.md`` for every array. Files are written atomically (a temporary file,
then a hard link under the final name, which fails rather than replace an existing file),
so a recording is never half-written and never overwrites another: a taken name gets a
numbered suffix instead.
"""

from __future__ import annotations

import datetime as _dt
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from sim_env.actions import check_masks
from sim_env.errors import UserInputError
from sim_env.files import write_new, write_whole
from sim_env.spec import CLICK_EVENT, RESET_EVENT_BASE

FORMAT_VERSION = 1
REQUIRED = {
    "events": (np.int8, 1),
    "initial": (np.float64, 2),
    "state": (np.float64, 3),
    "fallen": (np.int8, 1),
    "game_ended": (np.int8, 1),
    "jump_landed": (np.int8, 1),
    "score_time": (np.float64, 1),
    "score": (np.float64, 1),
    "keys": (np.int8, 1),
    "wall_time": (np.float64, 1),
    "update_index": (np.int64, 1),
    "episode": (np.int32, 1),
    "episode_start": (np.int64, 1),
    "episode_end": (np.int64, 1),
    "episode_partial": (np.int8, 1),
    "meta": (np.str_, 0),
}
# Optional arrays (older files lack them): the game time the page had counted at load, before
# its runner existed (the click zeroes it; only the intro screen's times depend on it).
OPTIONAL = {"initial_score_time": (np.float64, 0)}
PER_ROW = ("fallen", "game_ended", "jump_landed", "score_time", "score", "keys", "wall_time", "update_index", "episode")


def is_reset(events: Any) -> Any:
    """Whether session events (an int or an array) are R released: RESET_EVENT_BASE + mask."""
    return (events >= RESET_EVENT_BASE) & (events < RESET_EVENT_BASE + 16)


def episode_starts(events: np.ndarray) -> list[int]:
    """Rows where an episode starts: the click to begin and every R (whose update is the
    episode's first)."""
    return [i for i, e in enumerate(np.asarray(events)) if e == CLICK_EVENT or is_reset(int(e))]


class DemoFormatError(UserInputError):
    """A demo file is damaged or not a demo file; the message says what is wrong."""


@dataclass
class Demo:
    """A loaded demo: the arrays of the file and its metadata."""

    path: Path | None
    arrays: dict[str, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def events(self) -> np.ndarray:
        return self.arrays["events"]

    @property
    def num_episodes(self) -> int:
        return len(self.arrays["episode_start"])

    def episode_rows(self, i: int) -> slice:
        return slice(int(self.arrays["episode_start"][i]), int(self.arrays["episode_end"][i]))

    @property
    def initial_score_time(self) -> float:
        """The game time the page had counted at load (0 in files that predate it)."""
        return float(self.arrays.get("initial_score_time", 0.0))

    def trace(self) -> dict[str, np.ndarray]:
        """The reference-trace view (events, initial, state, flags, scores)."""
        keys = ("events", "initial", "state", "fallen", "game_ended", "jump_landed", "score_time", "score")
        return {k: self.arrays[k] for k in keys}


def save_demo(
    path: str | Path, arrays: dict[str, np.ndarray], meta: dict[str, Any], *, exact_name: bool = False
) -> Path:
    """Validate and write a demo atomically; returns the path written.

    If ``path`` exists, a new name (``NAME-1.npz``, ...) is used, unless ``exact_name``,
    in which case an existing file is replaced atomically (used only for the recorder's
    own autosave file).
    """
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_suffix(path.suffix + ".npz") if path.suffix else path.with_suffix(".npz")
    path.parent.mkdir(parents=True, exist_ok=True)
    full = dict(arrays)
    meta = {"format_version": FORMAT_VERSION, **meta}
    full["meta"] = np.array(json.dumps(meta, sort_keys=True))
    validate_arrays(full, where="demo to save")

    def write(f: BinaryIO) -> None:
        np.savez_compressed(f, **full)

    if exact_name:
        return write_whole(path, write)
    return write_new(path, write)


def validate_arrays(a: dict[str, np.ndarray], where: str = "demo") -> None:
    """Raise DemoFormatError naming exactly what is wrong with a demo's arrays."""
    missing = [k for k in REQUIRED if k not in a]
    if missing:
        raise DemoFormatError(f"{where}: missing arrays {missing} (found {sorted(a)})")
    for k, (dtype, ndim) in (REQUIRED | {k: v for k, v in OPTIONAL.items() if k in a}).items():
        arr = a[k]
        if k == "meta":
            if arr.dtype.kind != "U" or arr.ndim != 0:
                raise DemoFormatError(f"{where}: 'meta' must be a 0-d string, got dtype {arr.dtype} ndim {arr.ndim}")
            continue
        if arr.dtype != np.dtype(dtype):
            raise DemoFormatError(f"{where}: array '{k}' has dtype {arr.dtype}, expected {np.dtype(dtype)}")
        if arr.ndim != ndim:
            raise DemoFormatError(f"{where}: array '{k}' has {arr.ndim} dimensions, expected {ndim}")
    t = len(a["events"])
    if a["state"].shape != (t, 12, 6):
        raise DemoFormatError(f"{where}: 'state' has shape {a['state'].shape}, expected ({t}, 12, 6) for {t} events")
    if a["initial"].shape != (12, 6):
        raise DemoFormatError(f"{where}: 'initial' has shape {a['initial'].shape}, expected (12, 6)")
    for k in PER_ROW:
        if len(a[k]) != t:
            raise DemoFormatError(f"{where}: '{k}' has {len(a[k])} rows but there are {t} events")
    ev = a["events"]
    last_reset = RESET_EVENT_BASE + 15
    bad = np.flatnonzero((ev < 0) | ((ev > last_reset) & (ev != CLICK_EVENT)))
    if bad.size:
        raise DemoFormatError(
            f"{where}: events[{bad[0]}] = {ev[bad[0]]} is not an event (0..{last_reset} or {CLICK_EVENT})"
        )
    if a["keys"].size:
        try:
            check_masks(a["keys"], "keys", allow=(-1,))  # -1: no keys on the click's row
        except ValueError as exc:
            raise DemoFormatError(f"{where}: {exc}") from None
    if (ev == CLICK_EVENT).sum() > 1:
        raise DemoFormatError(f"{where}: more than one click event")
    for k in ("fallen", "game_ended", "jump_landed", "episode_partial"):
        if a[k].size and not np.isin(a[k], (0, 1)).all():
            raise DemoFormatError(f"{where}: '{k}' must hold only 0 and 1")
    if not np.isfinite(a["state"]).all():
        row = int(np.argwhere(~np.isfinite(a["state"]))[0][0])
        raise DemoFormatError(f"{where}: 'state' has a non-finite value at row {row}")
    starts, ends = a["episode_start"], a["episode_end"]
    if not (len(starts) == len(ends) == len(a["episode_partial"])):
        raise DemoFormatError(f"{where}: episode_start, episode_end and episode_partial differ in length")
    for i, (s, e) in enumerate(zip(starts, ends, strict=True)):
        if not 0 <= s < e <= t:
            raise DemoFormatError(f"{where}: episode {i} spans rows [{s}, {e}), outside 0..{t}")
    try:
        meta = json.loads(str(a["meta"]))
    except json.JSONDecodeError as exc:
        raise DemoFormatError(f"{where}: 'meta' is not valid JSON: {exc}") from exc
    if not isinstance(meta, dict):
        raise DemoFormatError(f"{where}: 'meta' must be a JSON object, got a {type(meta).__name__}")


def demo_files(paths: str | Path | list[str | Path]) -> list[Path]:
    """Demo files named by the user: a folder stands for the .npz files in it (sorted)."""
    out: list[Path] = []
    for p in [paths] if isinstance(paths, str | Path) else paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(p.glob("*.npz"))
            if not found:
                raise DemoFormatError(f"{p} is a folder without demo (.npz) files")
            out.extend(found)
        else:
            out.append(p)
    return out


def load_demo(path: str | Path) -> Demo:
    """Load and validate a demo file; DemoFormatError says what is wrong with a bad one."""
    p = Path(path)
    if not p.is_file():
        raise DemoFormatError(f"demo file not found: {p} (qwop demos list DIR shows the demos there)")
    if not zipfile.is_zipfile(p):
        raise DemoFormatError(
            f"{p}: not a readable demo (.npz) file: it is not a zip archive (truncated, or another kind of file)"
        )
    try:
        with np.load(p, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except zipfile.BadZipFile as exc:
        raise DemoFormatError(f"{p}: not a readable demo (.npz) file, perhaps truncated: {exc}") from exc
    except (zipfile.LargeZipFile, OSError, EOFError) as exc:
        raise DemoFormatError(f"{p}: could not read the file (truncated or corrupt): {exc}") from exc
    except ValueError as exc:
        raise DemoFormatError(f"{p}: an array could not be read (corrupt, or pickled data): {exc}") from exc
    except Exception as exc:  # zlib and CRC errors surface as various types
        raise DemoFormatError(f"{p}: corrupt file: {type(exc).__name__}: {exc}") from exc
    validate_arrays(arrays, where=str(p))
    return Demo(p, arrays, json.loads(str(arrays["meta"])))


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
