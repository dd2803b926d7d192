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


class BrowserGoneError(BrowserHarnessError):
    """The browser or its page stopped answering in the middle of a run (closed, killed, crashed)."""


def browser_failures() -> tuple[type[BaseException], ...]:
    """The exceptions by which a browser or page that went away shows itself: ours, the
    drivers' (Playwright's ``Error``, Selenium's ``WebDriverException``), the channel's and the
    socket's. A run catches these around its episodes to report what had finished."""
    kinds: list[type[BaseException]] = [BrowserHarnessError, ConnectionError, OSError]
    try:
        from playwright.sync_api import Error as PlaywrightError

        kinds.append(PlaywrightError)
    except ImportError:
        pass
    try:
        from selenium.common.exceptions import WebDriverException

        kinds.append(WebDriverException)
    except ImportError:
        pass
    try:
        from wsproto.utilities import LocalProtocolError, RemoteProtocolError

        kinds += [LocalProtocolError, RemoteProtocolError]
    except ImportError:
        pass
    return tuple(kinds)


def browser_stopped(exc: BaseException, finished: int) -> str:
    """What to report when the browser went away (``exc``, one of :func:`browser_failures`)
    after ``finished`` episodes. With none finished there is nothing to report: our own errors
    (a page that did not load) are raised as they are, the others as :class:`BrowserGoneError`."""
    why = " ".join(str(exc).split())[:200] or type(exc).__name__
    if finished == 0:
        if isinstance(exc, BrowserHarnessError):
            raise exc
        raise BrowserGoneError(f"the browser stopped answering ({why}); no episode had finished") from exc
    return f"the browser stopped answering during episode {finished + 1} ({why})"
