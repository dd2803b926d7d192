"""Every option of every command (``qwop`` and the benchmarks), given a bad value (negative,
zero where it must be positive, NaN, infinite, huge, not a number, empty), is refused before
any work in one line, exit 2."""

from __future__ import annotations

import argparse
import importlib

import pytest

from agents import usage
from agents.cli import build_parser

BAD = ["nan", "inf", "-inf", "-1", "abc", "", "1e400", "99999999999999999999999", "1.5e300"]
CHECKED_TYPES = {
    usage.positive_int,
    usage.nonnegative_int,
    usage.seed_int,
    usage.threads_int,
    usage.positive_float,
    usage.nonnegative_float,
    usage.minutes_float,
    usage.game_seconds,
    usage.probability,
}


BENCHMARKS = ("browser", "learning", "realtime", "search", "sim")


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    out = dict(sub.choices)
    for name in BENCHMARKS:
        out[f"agents.bench.{name}"] = importlib.import_module(f"agents.bench.{name}").build_parser()
    return out


def _parse(command: str, argv: list[str]) -> None:
    if command.startswith("agents.bench."):
        importlib.import_module(command).build_parser().parse_args(argv)
    else:
        build_parser().parse_args([command, *argv])


def _numeric_options() -> list[tuple[str, str, list[str]]]:
    rows = []
    for name, p in _commands().items():
        positionals = ["x" for a in p._actions if not a.option_strings and a.nargs in (None, 1)]
        for a in p._actions:
            if a.option_strings and a.type is not None:
                rows.append((name, a.option_strings[-1], positionals))
    return rows


NUMERIC = _numeric_options()


def test_every_number_an_option_takes_is_checked() -> None:
    """No option reads a bare int or float (which would take NaN, inf, negatives)."""
    for name, p in _commands().items():
        for a in p._actions:
            if a.option_strings and a.type is not None:
                assert a.type in CHECKED_TYPES, f"qwop {name} {a.option_strings[-1]} has type {a.type}"
    assert len(NUMERIC) > 30


@pytest.mark.parametrize(("command", "option", "positionals"), NUMERIC, ids=[f"{c} {o}" for c, o, _ in NUMERIC])
def test_bad_numbers_are_refused_in_one_line(command: str, option: str, positionals: list[str], capsys) -> None:
    for value in BAD:
        with pytest.raises(SystemExit) as stop:
            _parse(command, [*positionals, f"{option}={value}"])
        assert stop.value.code == 2, (option, value)
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ") and option in lines[0], (value, err)
