"""The package's optional extras (pyproject.toml's ``[project.optional-dependencies]``) by the
modules they bring, and the one-line error for a command that needs one that is not installed.

The core install (numpy and gymnasium) runs the simulator, its envs, ``qwop search`` and
``qwop replay``; training needs ``train``, the browser ``browser``, Ray trials ``scale``.
"""

from __future__ import annotations

import importlib.util

from sim_env.errors import UserInputError

# Import names of each extra's packages (a test holds this table to pyproject.toml's lists).
EXTRAS: dict[str, tuple[str, ...]] = {
    "browser": ("playwright", "selenium", "wsproto", "tqdm", "psutil"),
    "train": (
        "torch",
        "stable_baselines3",
        "sb3_contrib",
        "tensorboard",
        "tqdm",
        "rich",
        "PIL",
        "imageio_ffmpeg",
        "tomli_w",
        "pydantic",
        "psutil",
    ),
    "scale": ("ray",),
}


class MissingExtraError(UserInputError):
    """A command needs an extra that is not installed; the message says how to install it."""


def install_hint(extra: str) -> str:
    return f"bash scripts/install.sh {extra} in a clone, or pip install 'qwop-harness[{extra}]'"


def missing_modules(extra: str) -> list[str]:
    return [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]


def require_extra(extra: str, what: str) -> None:
    """Raises :class:`MissingExtraError` unless every package of ``extra`` is importable; ``what``
    names what needs it (``"qwop play"``, ``"--gif"``)."""
    missing = missing_modules(extra)
    if missing:
        raise MissingExtraError(f"{what} needs the {extra} extra ({', '.join(missing)} missing): {install_hint(extra)}")


def extra_of(module: str) -> str | None:
    """The extra that brings the top-level package of ``module``, if one does."""
    top = module.split(".")[0]
    return next((name for name, mods in EXTRAS.items() if top in mods), None)


__all__ = ["EXTRAS", "MissingExtraError", "extra_of", "install_hint", "missing_modules", "require_extra"]
