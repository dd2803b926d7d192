"""Running a search to its budget (updates or minutes): stages, progress, and saving its state
every few seconds and when it stops (Ctrl-C or SIGTERM between stages), so that a stopped
search resumes exactly (``agents/search/planner.py`` holds the searches themselves)."""

from __future__ import annotations

import time
from pathlib import Path

from agents.search.planner import BeamSearch, Expander, GuidedSearch, Planner
from agents.search.state import SearchState
from sim_env.errors import UserInputError
from sim_env.interrupts import StopRequest
from sim_env.progress import progress_bar

# Seconds between saves of a running search's state. A guided stage takes milliseconds and a
# saved state grows with the history, so saving after every stage cost more than searching;
# a search that is stopped (Ctrl-C, a budget) saves at once, a killed one loses at most this.
SAVE_EVERY_S = 5.0


def make_planner(state: SearchState, expander: Expander) -> Planner:
    """The search a state is for: guided if its configuration names a guide."""
    return (GuidedSearch if state.config.guide else BeamSearch)(state, expander)


def run_search(
    state: SearchState,
    expander: Expander,
    budget_updates: int | None,
    minutes: float = 0.0,
    state_path: Path | None = None,
    progress: bool = True,
) -> SearchState:
    """Search until ``budget_updates`` game updates have been simulated in all (a resumed
    search counts what it already did) and/or ``minutes`` of wall time (if > 0) have passed;
    saves its state every ``SAVE_EVERY_S`` (after the stage then running) and when it stops."""
    if budget_updates is None and not minutes > 0:
        raise UserInputError("give a budget: a number of updates or of minutes")
    if budget_updates is not None and budget_updates < 1:
        raise UserInputError(f"the budget must be at least 1 update, got {budget_updates}")
    planner = make_planner(state, expander)
    start = last_save = time.monotonic()
    done0 = state.updates
    by_updates = budget_updates is not None
    bar = progress_bar(
        total=budget_updates if by_updates else round(minutes * 60),
        initial=min(state.updates, budget_updates) if by_updates else 0,
        unit=" updates" if by_updates else " s",
        unit_scale=by_updates,
        desc="search",
        disable=not progress,
        dynamic_ncols=True,
    )
    whole = True  # the state is between stages, as it is saved (a second Ctrl-C may break one off)
    try:
        with StopRequest() as stop:
            while budget_updates is None or state.updates < budget_updates:
                if minutes > 0 and time.monotonic() - start > minutes * 60:
                    break
                if stop.requested:  # Ctrl-C or SIGTERM: stop between stages, so a resume goes on exactly
                    state.stopped_by = stop.signal_name
                    break
                before = state.updates
                whole = False
                planner.step()
                whole = True
                if state_path is not None and time.monotonic() - last_save >= SAVE_EVERY_S:
                    planner.save(state_path)
                    last_save = time.monotonic()
                if by_updates:
                    bar.update(min(state.updates, budget_updates) - min(before, budget_updates))
                else:
                    bar.update(min(round(time.monotonic() - start), bar.total) - bar.n)
                rate = (state.updates - done0) / max(1e-9, time.monotonic() - start)
                best = f"{state.best_time_s:.2f} s" if state.best_keys is not None else "none yet"
                fine_tries = state.config.fine_try_updates if getattr(planner, "fine", False) else 0
                fine = f", tries of {fine_tries} updates" if fine_tries else ""
                bar.set_postfix_str(
                    f"best {best}, farthest {state.farthest_m:.1f} m, {rate:,.0f} updates/s{fine}", refresh=False
                )
    finally:
        bar.close()
        if state_path is not None and whole:  # a stage broken off keeps the last save, made between stages
            planner.save(state_path)
    return state


__all__ = ["SAVE_EVERY_S", "make_planner", "run_search"]
