"""The facts shared by the simulator, the harness and the page adapter, read from their one
source, ``sim_env/spec.json`` (the C++ side is generated from it into ``cpp/game/spec.h`` by
``tools/gen_spec.py``; the adapter gets it in the page as ``window.__QWOP_SPEC__``).

Parts and joints in trace order, key bits, session event codes, the adapter's record layout
(a header, then every part's state) and its flag bits, units and the update rate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SPEC_PATH = Path(__file__).resolve().parent / "spec.json"
SPEC: dict[str, Any] = json.loads(SPEC_PATH.read_text(encoding="utf-8"))

PARTS: tuple[str, ...] = tuple(SPEC["parts"])
JOINTS: tuple[str, ...] = tuple(SPEC["joints"])
STATE_COLUMNS: tuple[str, ...] = tuple(SPEC["state_columns"])
KEYS: dict[str, int] = dict(SPEC["keys"])

RESET_EVENT_BASE: int = SPEC["events"]["reset_base"]  # 16 + mask: R released with mask held
CLICK_EVENT: int = SPEC["events"]["click"]  # the click to begin

# The adapter's record: RECORD_HEADER fields, then PARTS x STATE_COLUMNS.
RECORD_HEADER: tuple[str, ...] = tuple(SPEC["record_header"])
HEADER = len(RECORD_HEADER)
RECORD_SIZE = HEADER + len(PARTS) * len(STATE_COLUMNS)
REC_UPDATE, REC_EVENT, REC_FLAGS, REC_SCORE_TIME, REC_SCORE, REC_WALL_MS = (
    RECORD_HEADER.index(name) for name in ("update_index", "event", "flags", "score_time", "score", "wall_ms")
)

FLAGS: dict[str, int] = dict(SPEC["flags"])
FLAG_FALLEN = FLAGS["fallen"]
FLAG_ENDED = FLAGS["game_ended"]
FLAG_LANDED = FLAGS["jump_landed"]
FLAG_FIRST_CLICK = FLAGS["first_click"]

UPDATES_PER_SECOND: int = SPEC["updates_per_second"]
UNITS_PER_METRE = float(SPEC["units_per_metre"])


def for_page() -> str:
    """The spec as the script that gives it to the adapter (injected before it)."""
    return f"window.__QWOP_SPEC__ = {json.dumps(SPEC)};"
