"""The fuzzer at scale: at least 10,000 programs, with counts, coverage and time per program.

Runs programs ``0 .. COUNT-1`` of campaign ``--seed`` (exactly the programs ``privinfer fuzz
--seed S --count COUNT`` checks) in ``--workers`` processes, each program generated, calibrated,
verified, judged by the exact oracle and checked metamorphically (``verifier.fuzz.campaign``),
the certificates of failing programs checked by the kernel. Failures are then shrunk, one per
kind and combination of hole features (``--max-shrinks``), in the parent process.

Writes ``OUT/fuzz.json`` (the campaign report of ``privinfer fuzz --json``, with the time per
program and the machine's throughput) and ``OUT/fuzz.md`` (counts, coverage, time per program,
and every failure class with its minimised program and witness).

    python benchmarks/bench_fuzz.py [--seed 0] [--count 10000] [--workers 2] [--out benchmarks/results]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def run(seed: int, count: int, workers: int, max_shrinks: int, progress: bool = True):
    from verifier.fuzz.campaign import fuzz
    from verifier.fuzz.case import Config
    done = []
    start = time.perf_counter()

    def report_progress(case) -> None:
        done.append(len(case.failures))
        n = len(done)
        if progress and (n % 250 == 0 or n == count):
            print(f"  {n}/{count} programs, {sum(done)} failures, {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)

    return fuzz(Config(seed=seed, count=count, max_shrinks=max_shrinks, workers=workers), report_progress)


def markdown(report, workers: int) -> str:
    j = report.to_json()
    per = j["seconds_per_program"]
    lines = [
        "# The fuzzer at scale (`benchmarks/bench_fuzz.py`)",
        "",
        f"Campaign seed {j['seed']}, {j['generated']} programs, {workers} worker processes on "
        f"{os.cpu_count()} cores ({platform.python_implementation()} {platform.python_version()}); "
        f"{j['seconds']} s of wall time, {j['generated'] / max(j['seconds'], 1e-9):.1f} programs per second.",
        "",
        "Time per program (one worker, wall time of generate + calibrate + verify + judge + "
        f"metamorphic check + kernel check of failures): mean {per['mean']} s, median {per['median']} s, "
        f"max {per['max']} s.",
        "",
        "| count | value |",
        "|---|---|",
    ]
    for key in ("generated", "discarded", "checked", "claims", "verified", "rejected", "unknown", "audited",
                "holds", "unjudged", "metamorphic_checked", "failures", "kernel_failures"):
        lines.append(f"| {key} | {j[key]} |")
    lines += ["", "Failures by kind: " + (", ".join(f"{k} {v}" for k, v in j["failures_by_kind"].items()) or "none"),
              "", "Claims not judged, by reason: " +
              (", ".join(f"{k} {v}" for k, v in j["unjudged_reasons"].items()) or "none"),
              "", "## Coverage (programs using each construct)", "", "| construct | programs |", "|---|---|"]
    for k, v in sorted(j["coverage"].items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"| {k} | {v} |")
    if j["uncovered"]:
        lines += ["", "Not covered: " + ", ".join(j["uncovered"])]
    classes = report.classes()
    if classes:
        lines += ["", "## Failure classes (shrunk)", ""]
        for n, ((kind, _), members) in enumerate(classes, 1):
            f = members[0]
            lines += [f"### {n}. {kind}: {f.claim or 'the program'} (seed {f.seed}; {len(members)} shrunk like it; "
                      f"kernel: {f.shrunk_kernel or f.kernel or 'not checked'})", "", "```", f.shrunk.rstrip(),
                      "```", ""]
            if f.witness is not None:
                lines += ["```", f.witness.render(), "```", ""]
            elif f.message:
                lines += [f.message, ""]
    return "\n".join(lines) + "\n"


def slim(data):
    """The report with every failure as ``kind``, ``claim``, ``seed`` (and the kernel's
    opinion), and in full only the minimised ones: 10,000 programs give a thousand failures."""
    data["failure_list"] = [f if f.get("shrunk") else
                            {k: f[k] for k in ("kind", "claim", "seed", "kernel") if k in f}
                            for f in data["failure_list"]]
    for f in data["failure_list"]:
        f.pop("program", None)
        f.pop("features", None)
    return data


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-shrinks", type=int, default=40)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    args = parser.parse_args(argv)
    report = run(args.seed, args.count, args.workers, args.max_shrinks)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data = slim(report.to_json())
    data["workers"] = args.workers
    data["programs_per_second"] = round(data["generated"] / max(data["seconds"], 1e-9), 2)
    (out / "fuzz.json").write_text(json.dumps(data, indent=1, default=str) + "\n")
    (out / "fuzz.md").write_text(markdown(report, args.workers))
    print(report.render(coverage_lines=False))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
