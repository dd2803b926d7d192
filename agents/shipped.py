"""The data that ships with the agents: trained models, the planner's records, training recipes,
the opening ``qwop play`` follows.

These are files, not code: a model is an SB3 ``.zip`` with its ``.qwop.json`` sidecar, a record
a demo file (``.npz``) with its GIF, a recipe a training config (``.toml``), an opening a line of
decisions (``.npz``, ``agents.realtime.opening``).
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
MODELS = HERE / "models"
RECORDS = HERE / "records"
RECIPES = HERE / "recipes"
OPENINGS = HERE / "openings"
PRETRAINED = MODELS / "qwop_pddqn.zip"  # the default model of eval, play and tune-guide
# the record recipe's own result from scratch (record.toml), which PRETRAINED was trained on from
RECIPE_MODEL = MODELS / "qwop_pddqn_recipe.zip"
# the plain policy's model for real-time play (qwop play --horizon 0): PRETRAINED trained on from
# real-time starts (agents/recipes/realtime.toml), judged from the click in update 90
REALTIME_MODEL = MODELS / "qwop_pddqn_realtime.zip"
# the default guide of the guided search: RECIPE_MODEL tuned on the search's own choices
# (qwop tune-guide --rounds 2); a guide, not a runner: closed loop it falls more often
GUIDE = MODELS / "qwop_guide.zip"

# the default opening of qwop play's planner: planned offline from a click in update 90
# (qwop opening; how, in its meta)
OPENING = OPENINGS / "qwop_opening.npz"

__all__ = [
    "GUIDE",
    "MODELS",
    "OPENING",
    "OPENINGS",
    "PRETRAINED",
    "REALTIME_MODEL",
    "RECIPES",
    "RECIPE_MODEL",
    "RECORDS",
]
