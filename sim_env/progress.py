"""Progress bars: tqdm's where it is installed (the train and browser extras bring it), else a
plain line on stderr every few seconds, so that a core install shows progress too."""

from __future__ import annotations

import sys
import time
from typing import Any

PLAIN_EVERY_S = 5.0


class PlainBar:
    """The part of tqdm's interface the harness uses, printed as a line now and then."""

    def __init__(
        self,
        total: float | None = None,
        initial: float = 0,
        desc: str = "",
        unit: str = "",
        disable: bool = False,
        **_: Any,
    ) -> None:
        self.total, self.n, self.desc, self.unit, self.disable = total, initial, desc, unit, disable
        self.postfix = ""
        self._last = time.monotonic()

    def update(self, n: float = 1) -> None:
        self.n += n
        if time.monotonic() - self._last >= PLAIN_EVERY_S:
            self._print()

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = s

    def _print(self) -> None:
        self._last = time.monotonic()
        if self.disable:
            return
        share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        of = f"/{self.total:,.0f}" if self.total else ""
        tail = f", {self.postfix}" if self.postfix else ""
        print(f"{self.desc}: {self.n:,.0f}{of}{self.unit}{share}{tail}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.n:
            self._print()

    def __enter__(self) -> PlainBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress_bar(**kwargs: Any) -> Any:
    """A tqdm bar with these arguments, or a :class:`PlainBar` without tqdm."""
    try:
        from tqdm import tqdm
    except ImportError:
        return PlainBar(**kwargs)
    return tqdm(**kwargs)


__all__ = ["PlainBar", "progress_bar"]
