"""The browser harness's errors a user can meet, each with a message that says what to do.

They live apart from the modules that raise them so that the ``qwop`` command can catch
them (one line, exit code 2) without importing the browser drivers.
"""

from __future__ import annotations


class BrowserHarnessError(RuntimeError):
    """Base of the errors below."""


class GameFolderError(BrowserHarnessError, FileNotFoundError):
    """The game folder is missing or lacks a file."""


class BrowserError(BrowserHarnessError):
    """The browser could not be started or driven."""


class GameLoadError(BrowserHarnessError):
    """The game page did not load, or the adapter could not find or drive the game."""
