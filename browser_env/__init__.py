"""Driving the original QWOP in a browser: game server, drivers, ``BrowserGame``, and the
``QwopBrowser-v0`` Gymnasium env (same spaces as ``QwopSim-v0``).

Importing the package needs only the core install: the names below are loaded when first
used, so that the ``qwop`` command starts without the browser extra and says when a command
needs it.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium as gym

_LAZY = {
    "QwopBrowserEnv": "browser_env.env",
    "BrowserGame": "browser_env.game",
    "GameLoadError": "browser_env.game",
    "GameFolderError": "browser_env.server",
    "GameServer": "browser_env.server",
}

# Registered here, by name, so that gymnasium.make("QwopBrowser-v0") works without importing the
# env's module (and the browser extra) first.
if "QwopBrowser-v0" not in gym.registry:
    gym.register(id="QwopBrowser-v0", entry_point="browser_env.env:QwopBrowserEnv")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'browser_env' has no attribute {name!r}")


__all__ = ["BrowserGame", "GameFolderError", "GameLoadError", "GameServer", "QwopBrowserEnv"]
