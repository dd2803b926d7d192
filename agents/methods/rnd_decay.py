"""How the RND exploration bonus's weight falls over training (kept free of torch, so that the
training config can name the schedules without loading the method)."""

from __future__ import annotations

RND_DECAYS = ("none", "linear", "exponential")


def bonus_weight(weight: float, decay: str, decay_steps: int, step: int) -> float:
    """The bonus's weight at env step ``step``: constant (``none``), ``linear`` to zero at
    ``decay_steps``, or ``exponential`` with half-life ``decay_steps``."""
    if decay == "none" or decay_steps <= 0:
        return weight
    if decay == "linear":
        return weight * max(0.0, 1.0 - step / decay_steps)
    if decay == "exponential":
        return weight * 0.5 ** (step / decay_steps)
    raise ValueError(f"rnd decay must be one of {RND_DECAYS}, got {decay!r}")


__all__ = ["RND_DECAYS", "bonus_weight"]
