"""Our scheduler against the vendor's: bishengir-opt's intra-core auto-sync on the flag-free form of
every example (issue 19; docs/figures.md, "The vendor's compiler as a second judge").

For each example: the sync pairs (set_flag operations in the kernel text) and pipe barriers of our
schedule without multi-buffering (the vendor's form), of ours as users get it (multi_buffer="auto"),
and of the vendor's two solvers (`hivm-inject-sync`, `hivm-graph-sync-solver`), the modeled time of
each (asc.profile's timing model), whether the simulator's race checker accepts the vendor's schedule,
and the vendor syncs our model needs none of (each with its reason, --why).

Run: python benchmarks/vendor_sync.py [--why] [--solver inject-sync|graph-sync-solver|both]
Needs: pip install 'ascendnpu-ir==1.2.0' (the extra asc-trace[vendor-ir]).
"""
from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))

from asc_trace.errors import AscTraceError  # noqa: E402
from asc_trace.toolchain import bishengir  # noqa: E402
from asc_trace.vendor_judge import Verdict, example_launch, judge  # noqa: E402

EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.py"))


def _cell(s) -> str:
    if s.error:
        return f"{s.pairs}/{s.barriers} RACE"
    return f"{s.pairs}/{s.barriers} {s.cycles:,.0f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--why", action="store_true", help="list each vendor sync our model needs none of")
    ap.add_argument("--solver", default="both", choices=["inject-sync", "graph-sync-solver", "both"])
    ap.add_argument("examples", nargs="*", default=EXAMPLES)
    opts = ap.parse_args()
    if not bishengir.available():
        print(f"vendor_sync: skipped, bishengir-opt is not installed (pip install '{bishengir.PIN}')")
        return 0
    solvers = ["inject-sync", "graph-sync-solver"] if opts.solver == "both" else [opts.solver]
    print(f"vendor: {bishengir.version()}   (pairs/barriers cycles; RACE = the simulator refuses the schedule)")
    head = ["kernel", "ours mb=1", "ours auto"] + [f"vendor {s}" for s in solvers] + ["vendor-only", "s"]
    rows, notes, errors = [head], [], []
    t0 = time.perf_counter()
    for name in opts.examples:
        try:
            launch = example_launch(importlib.import_module(name))
        except LookupError as e:
            notes.append(f"{name}: not run ({e})")
            continue
        verdicts: list[Verdict] = []
        try:
            for s in solvers:
                verdicts.append(judge(launch, s))
        except AscTraceError as e:
            notes.append(f"{name}: not lowered: {e.msg}")
            continue
        v0 = verdicts[0]
        rows.append([name, _cell(v0.ours), _cell(v0.ours_default)] + [_cell(v.vendor) for v in verdicts]
                    + [" ".join(str(len(v.vendor_only)) for v in verdicts), f"{sum(v.seconds for v in verdicts):.2f}"])
        for v in verdicts:
            if v.vendor.error:
                errors.append(f"{name} ({v.solver}): {v.vendor.error.splitlines()[0]}")
            if opts.why:
                for label, why in v.vendor_only:
                    notes.append(f"{name} ({v.solver}) {label}: {why}")
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    print(f"total {time.perf_counter() - t0:.1f} s")
    for line in errors:
        print("RACE", line)
    for line in notes:
        print("-", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
