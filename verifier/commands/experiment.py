"""``privinfer experiment accuracy --out DIR [--draws N] [--quick] [--seed S] [--step N]``

Reproduces the seed poster's accuracy study (Fig. 2): see ``verifier/experiments.py`` for what
is computed and what is exact. Writes ``DIR/accuracy.csv``, ``DIR/accuracy.md`` and
``DIR/accuracy_k2.png``, ``_k3.png``, ``_k4.png``; shows a progress bar on stderr when it is a
terminal (``--no-progress``: never) and prints the files written. The Laplace draws come from a
seeded numpy generator: experiment draws, not releases.
"""
from __future__ import annotations

import argparse
import sys

from verifier.errors import error
from verifier.output_paths import check_output_dir

#: The most Laplace draws per point (they are held in memory at once).
MAX_DRAWS = 10_000_000
from verifier.experiments import DEFAULT_SEED, default_config, run_accuracy, winners


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study", choices=["accuracy"], help="the study to run (accuracy: the poster's Fig. 2)")
    parser.add_argument("--out", required=True, metavar="DIR", help="directory for the CSV, Markdown and PNG files")
    parser.add_argument("--draws", type=int, default=None, metavar="N",
                        help="Monte Carlo draws per point for the Laplace baselines (default 10000; 200 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a small smoke run (n = 20, 40)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"experiment seed (default {DEFAULT_SEED})")
    parser.add_argument("--step", type=int, default=50, metavar="N",
                        help="spacing of the data sizes (default 50: n = 100, 150, ...)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (there is none when stderr is not a terminal)")


def run(args: argparse.Namespace) -> int:
    if args.draws is not None and not 2 <= args.draws <= MAX_DRAWS:
        raise error("U002", f"--draws must be between 2 and {MAX_DRAWS}, got {args.draws}")
    if args.step < 1:
        raise error("U002", f"--step must be at least 1, got {args.step}")
    check_output_dir(args.out, "--out")
    config = default_config(quick=args.quick, draws=args.draws, seed=args.seed, step=args.step)
    # a progress bar redraws itself: on a terminal only, never into a redirected log
    report = run_accuracy(config, args.out, progress=not args.no_progress and sys.stderr.isatty())
    for path in report.files:
        print(path)
    for k in sorted(config.sizes):
        counts = {}
        for n, m in winners(report.rows, k).items():
            counts.setdefault(m, []).append(n)
        summary = "; ".join(f"{m} at n = {', '.join(map(str, ns))}" for m, ns in counts.items())
        print(f"k = {k}: smallest mean error: {summary}")
    print(f"{len(report.rows)} points in {report.seconds:.1f} s")
    return 0
