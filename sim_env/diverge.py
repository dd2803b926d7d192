"""Find where the simulator departs from a reference trace.

    python -m sim_env.diverge ../shared/qwop-reference/traces/gait_a.npz
    python -m sim_env.diverge TRACE.npz --tolerance 1e-9

Prints the first divergent update and the first quantity that differs (part and state
column, a flag, or the score). When a ``NAME.detail.json.gz`` sits beside the trace, it
also compares the engine internals (contacts with impulses, joint forces, body torques,
floor tiles, camera) and prints the first section that differs, which usually points
at the cause a few updates before the state itself departs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from sim_env.traces import first_detail_divergence, first_divergence, load_detail, load_trace, simulate
from sim_env.usage import OneLineParser, report_user_errors


@report_user_errors()
def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m sim_env.diverge", description=__doc__.split("\n\n")[0])
    ap.add_argument("trace", help="a trace .npz (keys or session events)")
    ap.add_argument("--tolerance", type=float, default=0.0, help="allowed state difference (0 = bit for bit)")
    ap.add_argument("--detail", help="detail .json.gz to compare (default: the one beside the trace)")
    args = ap.parse_args(argv)

    trace = load_trace(args.trace)
    run = simulate(trace)
    div = first_divergence(trace, run, args.tolerance)
    n = len(trace["state"])
    if div is None:
        print(f"{args.trace}: identical over all {n} updates")
    else:
        print(f"{args.trace}: first divergence at {div}")

    detail_path = Path(args.detail) if args.detail else Path(str(args.trace).removesuffix(".npz") + ".detail.json.gz")
    if "keys" in trace and detail_path.is_file():
        found = first_detail_divergence(trace["keys"], load_detail(detail_path))
        if found is None:
            print(f"{detail_path.name}: engine internals identical")
        else:
            t, section, expected, got = found
            print(f"{detail_path.name}: internals differ first at update {t} in {section}")
            print(f"  expected: {json.dumps(expected)[:2000]}")
            print(f"  got:      {json.dumps(got)[:2000]}")
            div = div or found  # type: ignore[assignment]
    return 0 if div is None else 1


if __name__ == "__main__":
    sys.exit(main())
