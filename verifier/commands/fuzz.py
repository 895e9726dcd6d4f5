"""``privinfer fuzz [--seed S] [--count N | --time SECONDS] [--out DIR] [--json]``: the soundness
oracle. Random well-typed programs with claims are verified, and every verified claim is judged
by the exact semantics on every pair of inputs it covers (``verifier.fuzz``, docs/fuzz.md).
With ``--certificates``, the certificate-mutation oracle instead: ``N`` forged certificates of
bundled and random programs, each the kernel accepts judged against the verifier
(``verifier.fuzz.forgery``).

Exit 0 when no failure was found, 1 when one was, 2 on bad input (a bad option).
"""
from __future__ import annotations

import argparse
import json
import math
import sys

from verifier.errors import error
from verifier.output_paths import check_output_dir

#: The most worker processes a campaign starts (each is a whole verifier).
MAX_WORKERS = 64


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=0, help="the campaign's seed (default 0)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--count", type=int, metavar="N", help="programs to generate (default 100)")
    budget.add_argument("--time", type=float, metavar="SECONDS", help="run for this long instead")
    parser.add_argument("--out", metavar="DIR",
                        help="write every shrunk failure (program, verifier output, witness) and the report here")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--program", type=int, metavar="I",
                        help="check only program I of the campaign (as numbered in the report)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="check the programs in N processes (with --count; default 1)")
    parser.add_argument("--no-shrink", action="store_true", help="do not minimise failures")
    parser.add_argument("--max-shrinks", type=int, default=20, metavar="N",
                        help="failures to minimise at most (default 20; one per kind and hole first)")
    parser.add_argument("--no-metamorphic", action="store_true", help="skip the metamorphic checks")
    parser.add_argument("--no-kernel", action="store_true", help="do not check failing programs' certificates")
    parser.add_argument("--certificates", action="store_true",
                        help="the certificate-mutation oracle: forge N certificates (--count, "
                             "default 200) and require that whatever the kernel accepts, "
                             "privinfer verify verifies")
    parser.add_argument("--while", dest="while_programs", action="store_true",
                        help="while-programs (.pwhile, docs/aprhl.md): mutate the suite's "
                             "programs N times (--count, default 100), verify each, and replay "
                             "every verified procedure under its coupling on random inputs")


def run(args: argparse.Namespace) -> int:
    from verifier.fuzz.campaign import fuzz
    from verifier.fuzz.case import Config
    if args.count is not None and args.count < 0:
        raise error("U002", f"--count must be at least 0, got {args.count}")
    if args.time is not None and not 0 < args.time < math.inf:
        raise error("U002", f"--time must be a positive number of seconds, got {args.time}")
    if args.max_shrinks < 0:
        raise error("U002", f"--max-shrinks must be at least 0, got {args.max_shrinks}")
    if not 1 <= args.workers <= MAX_WORKERS:
        raise error("U002", f"--workers must be between 1 and {MAX_WORKERS}, got {args.workers}")
    if args.out:
        check_output_dir(args.out, "--out")
    if getattr(args, "while_programs", False):
        return run_while(args)
    if args.certificates:
        return run_forgeries(args)
    count = args.count if args.count is not None else (None if args.time is not None else 100)
    config = Config(seed=args.seed, count=count, seconds=args.time, metamorphic=not args.no_metamorphic,
                    kernel=not args.no_kernel, shrink=not args.no_shrink, max_shrinks=args.max_shrinks,
                    only=args.program, workers=min(args.workers, count) if count else args.workers)

    def progress(case) -> None:
        for f in case.failures:
            if not args.json:
                print(f"  program {case.index} (seed {case.seed}): {f.kind} failure of {f.claim or 'the program'}"
                      f"{'; the kernel accepted its certificate' if f.kernel_accepted else ''}", file=sys.stderr)

    report = fuzz(config, progress)
    if args.out:
        report.write(args.out)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, default=str))
    else:
        print(report.render())
        if args.out:
            print(f"  written to {args.out}")
    return 1 if report.failures else 0


def run_while(args: argparse.Namespace) -> int:
    """``--while``: the replay oracle of ``verifier.aprhl.campaign`` on mutants of the suite's
    while-programs and on new random ones (``verifier.aprhl.generate``); exit 1 when a verified procedure breaks its coupling on a concrete run."""
    from pathlib import Path
    from verifier.aprhl.campaign import fuzz as fuzz_while
    if args.time is not None:
        raise error("U002", "--while takes --count, not --time")
    root = Path(__file__).resolve().parents[2] / "benchmarks" / "programs" / "aprhl"
    texts = [p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.pwhile"))]
    if not texts:
        raise error("U001", f"no while-programs under {root}")
    stats = fuzz_while(texts, 100 if args.count is None else args.count, args.seed,
                       workers=args.workers)
    failures = stats["failures"]
    if args.out:
        import os
        with open(os.path.join(args.out, "while_fuzz.json"), "w", encoding="utf-8") as out:
            json.dump(stats, out, indent=1)
    if args.json:
        print(json.dumps(stats, indent=1))
    else:
        print(f"while-programs: {stats['mutants']} mutants, {stats['generated']} generated, "
              f"{stats['well_typed']} well typed, "
              f"{stats['verified']} verified procedures, {stats['replays']} coupled replays, "
              f"{len(failures)} failures")
        for f in failures[:5]:
            print(f"FAILURE {f['proc']}: {'; '.join(f['violations'])}\n{f['program']}")
    return 1 if failures else 0


def run_forgeries(args: argparse.Namespace) -> int:
    """``--certificates``: the certificate-mutation oracle (``verifier.fuzz.forgery``)."""
    from verifier.fuzz.forgery import campaign
    count = args.count if args.count is not None else (None if args.time is not None else 200)
    report = campaign(args.seed, count, args.time)
    if args.out:
        report.write(args.out)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.render())
        if args.out:
            print(f"  written to {args.out}")
    return 1 if report.failures else 0
