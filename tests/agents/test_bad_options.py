"""Every option of every command, given a bad value (negative, zero where it must be positive,
NaN, infinite, huge, not a number, empty), is refused before any work in one line, exit 2."""

from __future__ import annotations

import argparse

import pytest

from agents.cli import build_parser, usage

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


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


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
            build_parser().parse_args([command, *positionals, f"{option}={value}"])
        assert stop.value.code == 2, (option, value)
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ") and option in lines[0], (value, err)
