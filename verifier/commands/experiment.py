"""``privinfer experiment STUDY --out DIR [--quick] [--draws N] [--seed S] [--step N] [--prior A,B]``

Reproduces the seed poster's figures (see ``verifier/experiments.py`` for what is computed and
what is exact):

* ``accuracy`` — Fig. 2: ``accuracy.csv``, ``accuracy.md``, ``accuracy_k2.png``, ``_k3.png``,
  ``_k4.png``;
* ``sensitivity`` — Fig. 1: ``sensitivity.csv``, ``sensitivity_trend.csv``,
  ``sensitivity.md``, ``sensitivity.png``;
* ``priors`` — Fig. 3(a): ``priors.csv``, ``priors.md``, ``priors.png``;
* ``law`` — Fig. 3(b) and 3(c): ``law.csv``, ``law.md``, ``law_k2.png``, ``law_k3.png``.

Shows a progress bar on stderr when it is a terminal (``--no-progress``: never; a redirected log
gets none) and prints the files written and a one-line summary per panel. The output folder is
checked before any work starts (U003).
Laplace draws come from a seeded numpy generator: experiment draws, not releases.
"""
from __future__ import annotations

import argparse
import math
import sys

from verifier import experiments as ex
from verifier.errors import error
from verifier.output_paths import check_output_dir

#: The most Laplace draws per point (they are held in memory at once).
MAX_DRAWS = 10_000_000

STUDIES = {
    "accuracy": "the poster's Fig. 2: accuracy against the data size",
    "sensitivity": "Fig. 1: the sensitivity of the Hellinger distance over Beta posteriors",
    "priors": "Fig. 3(a): accuracy against the prior",
    "law": "Fig. 3(b), 3(c): the probability of each candidate against its distance",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study", choices=list(STUDIES),
                        help="; ".join(f"{name}: {text}" for name, text in STUDIES.items()))
    parser.add_argument("--out", required=True, metavar="DIR", help="directory for the CSV, Markdown and PNG files")
    parser.add_argument("--draws", type=int, default=None, metavar="N",
                        help="Monte Carlo draws of the Laplace baselines (accuracy: per point, default 10000, "
                             "200 with --quick; law: per 3-D baseline, default 1000000, 2000 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument("--seed", type=int, default=ex.DEFAULT_SEED, help=f"experiment seed (default {ex.DEFAULT_SEED})")
    parser.add_argument("--step", type=int, default=50, metavar="N",
                        help="accuracy: spacing of the data sizes (default 50: n = 100, 150, ...)")
    parser.add_argument("--prior", default="1,1", metavar="A,B",
                        help="sensitivity: the Beta prior (default 1,1)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (there is none when stderr is not a terminal)")


def run(args: argparse.Namespace) -> int:
    if args.draws is not None and not 2 <= args.draws <= MAX_DRAWS:
        raise error("U002", f"--draws must be between 2 and {MAX_DRAWS}, got {args.draws}")
    if args.step < 1:
        raise error("U002", f"--step must be at least 1, got {args.step}")
    check_output_dir(args.out, "--out")
    # a progress bar redraws itself: on a terminal only, never into a redirected log
    progress = not args.no_progress and sys.stderr.isatty()
    if args.study == "sensitivity":
        return _sensitivity(args, progress)
    if args.study == "priors":
        report = ex.run_priors(ex.default_priors_config(quick=args.quick), args.out, progress=progress)
        _print_files(report.files)
        counts = {}
        for prior, m in ex.prior_winners(report).items():
            counts.setdefault(m, []).append(f"Beta({prior[0]:g}, {prior[1]:g})")
        print("smallest mean error: " + "; ".join(f"{m} at {', '.join(ps)}" for m, ps in counts.items()))
        print(f"{len(report.rows)} points in {report.seconds:.1f} s")
        return 0
    if args.study == "law":
        config = ex.default_law_config(quick=args.quick, draws=args.draws, seed=args.seed)
        report = ex.run_law(config, args.out, progress=progress)
        _print_files(report.files)
        for law in report.laws:
            print(f"k = {law.k}, n = {law.n}, {law.mechanism}: E[H] = {float(law.p @ law.h):.4f} ({law.method})")
        print(f"{len(report.laws)} laws in {report.seconds:.1f} s")
        return 0
    config = ex.default_config(quick=args.quick, draws=args.draws, seed=args.seed, step=args.step)
    report = ex.run_accuracy(config, args.out, progress=progress)
    _print_files(report.files)
    for k in sorted(config.sizes):
        counts = {}
        for n, m in ex.winners(report.rows, k).items():
            counts.setdefault(m, []).append(n)
        summary = "; ".join(f"{m} at n = {', '.join(map(str, ns))}" for m, ns in counts.items())
        print(f"k = {k}: smallest mean error: {summary}")
    print(f"{len(report.rows)} points in {report.seconds:.1f} s")
    return 0


def _sensitivity(args: argparse.Namespace, progress: bool) -> int:
    try:
        a, b = (float(x) for x in args.prior.split(","))
    except ValueError:
        raise error("U002", f"--prior must be two numbers A,B, got {args.prior!r}") from None
    if not (0 < a < math.inf and 0 < b < math.inf):
        raise error("U002", f"--prior needs positive finite parameters, got {args.prior!r}")
    report = ex.run_sensitivity(ex.default_sensitivity_config(quick=args.quick, prior=(a, b)), args.out,
                                progress=progress)
    _print_files(report.files)
    for t in report.trend:
        print(f"n = {t.n}: GS = {t.gs:.4f} at the edge, LS = {t.ls_centre:.4f} at j = n/2 "
              f"({t.ls_centre / t.gs:.3f} GS), S = {t.s_delta_centre:.4f} (eps, delta) / "
              f"{t.s_pure_centre:.4f} (pure); "
              + ("LS > GS/2 everywhere" if t.half_width is None else f"LS <= GS/2 from j = {t.half_width}"))
    print(f"{len(report.rows) + len(report.trend)} points in {report.seconds:.1f} s")
    return 0


def _print_files(files) -> None:
    for path in files:
        print(path)
