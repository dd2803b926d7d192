"""Driving the original QWOP in a browser: game server, drivers, ``BrowserGame``, and the
``QwopBrowser-v0`` Gymnasium env (same spaces as ``QwopSim-v0``)."""

from browser_env.env import QwopBrowserEnv, register
from browser_env.game import BrowserGame, GameLoadError
from browser_env.server import GameFolderError, GameServer

register()

__all__ = ["BrowserGame", "GameFolderError", "GameLoadError", "GameServer", "QwopBrowserEnv"]
