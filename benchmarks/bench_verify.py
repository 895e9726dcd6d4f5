"""Wall time of ``privinfer verify`` on the shared examples, start-up included.

The target (issue [verifier]): every shared example verifies in under 2 s and all of them in
under 10 s in total on the project's 2-core machine. Each program is verified ``--repeat``
times in a fresh process; the median is reported.

    python benchmarks/bench_verify.py [--repeat 3] [--out benchmarks/results/verify_times.md]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIRS = ("paper", "course", "negative")
LIMIT_EACH, LIMIT_TOTAL = 2.0, 10.0


def time_verify(path: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "verifier.cli", "verify", str(path)],
                       capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "verify_times.md"))
    args = parser.parse_args()
    rows = []
    for d in DIRS:
        for path in sorted((ROOT / "benchmarks" / "programs" / d).glob("*.pinf")):
            seconds = time_verify(path, args.repeat)
            rows.append((f"{d}/{path.name}", seconds))
            print(f"{seconds:6.2f} s  {d}/{path.name}", flush=True)
    total = sum(s for _, s in rows)
    worst = max(s for _, s in rows)
    ok = total < LIMIT_TOTAL and worst < LIMIT_EACH
    lines = ["# `privinfer verify` wall time on the shared examples", "",
             f"Median of {args.repeat} runs per program, start-up included.", "",
             "| program | seconds |", "|---|---:|"]
    lines += [f"| {name} | {s:.2f} |" for name, s in rows]
    lines += ["", f"Total {total:.2f} s (target < {LIMIT_TOTAL:.0f} s), slowest {worst:.2f} s "
                  f"(target < {LIMIT_EACH:.0f} s): {'met' if ok else 'NOT met'}."]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(lines[-1])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
