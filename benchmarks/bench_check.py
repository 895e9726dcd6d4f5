"""Checking a certificate against verifying the program: time per shared example.

The issue ([certificates]) asks that checking a certificate take no longer than verifying
the program did. For every shared example (benchmarks/programs/{paper,course,negative}) this
times, in this process, the median over ``--repeat`` runs of

* verify: ``verify_program(program, typed)`` (parsing and simple typing excluded, as in
  ``privinfer bench``);
* check: ``checker.kernel.check(certificate)`` with the lemma re-check cache emptied first,
  so that every run re-checks the artifacts of the lemmas the certificate cites; and the
  part of it spent outside the lemma re-checks (structure, rules, SMT re-runs).

With ``--cli`` it also times ``privinfer verify FILE --certificate`` and ``privinfer check``
end to end in fresh processes (start-up included: the kernel imports the lemma library,
hence sympy, which ``privinfer verify`` does not).

    python benchmarks/bench_check.py [--repeat 3] [--cli] [--out benchmarks/results/check_times.md]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker import kernel  # noqa: E402
from checker.certify import certificate, dumps  # noqa: E402
from verifier.language.parser import parse_file  # noqa: E402
from verifier.language.typecheck import typecheck_program  # noqa: E402
from verifier.verification import verify_program  # noqa: E402

DIRS = ("paper", "course", "negative")


def timed(fn, repeat: int):
    """(median seconds, last result) of ``repeat`` calls of ``fn``."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def cold_check(cert):
    kernel.LEMMA_CHECKS.clear()
    return kernel.check(cert)


def cli_times(path: Path, repeat: int):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cert.json"
        verify = [sys.executable, "-m", "verifier.cli", "verify", str(path.relative_to(ROOT)),
                  "--certificate", str(out)]
        check = [sys.executable, "-m", "verifier.cli", "check", str(out)]
        v, _ = timed(lambda: subprocess.run(verify, cwd=ROOT, capture_output=True), repeat)
        c, _ = timed(lambda: subprocess.run(check, cwd=ROOT, capture_output=True), repeat)
    return v, c


def import_time(statement: str, repeat: int) -> float:
    """Median seconds of a fresh interpreter running ``statement``."""
    return timed(lambda: subprocess.run([sys.executable, "-c", statement], cwd=ROOT),
                 repeat)[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cli", action="store_true", help="also time the commands end to end")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "check_times.md"))
    args = parser.parse_args()
    rows = []
    for d in DIRS:
        for path in sorted((ROOT / "benchmarks" / "programs" / d).glob("*.pinf")):
            program = parse_file(str(path.relative_to(ROOT)))
            typed = typecheck_program(program)
            verify, report = timed(lambda: verify_program(program, typed), args.repeat)
            cert = json.loads(dumps(certificate(report, program.source, program.file)))
            check, outcome = timed(lambda: cold_check(cert), args.repeat)
            if not outcome.valid:
                print(f"{d}/{path.name}: INVALID: {outcome.reason}", file=sys.stderr)
                return 1
            lemmas = outcome.seconds.get("lemmas", 0.0)
            row = {"name": f"{d}/{path.name}", "verify": verify, "check": check,
                   "rules": check - lemmas, "lemmas": lemmas,
                   "size": len(dumps(cert).encode()) // 1024,
                   "verified": sum(c["verdict"] == "verified" for c in cert["claims"]),
                   "claims": len(cert["claims"])}
            if args.cli:
                row["cli_verify"], row["cli_check"] = cli_times(path, args.repeat)
            rows.append(row)
            print(f"{row['name']:55s} verify {verify:5.2f} s  check {check:5.2f} s "
                  f"(lemmas {lemmas:4.2f} s)", flush=True)
    write(rows, args)
    return 0


def write(rows, args) -> None:
    total_v = sum(r["verify"] for r in rows)
    total_c = sum(r["check"] for r in rows)
    total_r = sum(r["rules"] for r in rows)
    slower = [r["name"] for r in rows if r["check"] > r["verify"]]
    rules_slower = [r["name"] for r in rows if r["rules"] > r["verify"]]
    cli = ["CLI verify (s)", "CLI check (s)"] if args.cli else []
    head = ["program", "claims verified", "certificate (KiB)", "verify (s)", "check (s)",
            "check without lemma re-checks (s)", "lemma re-checks (s)"] + cli
    lines = ["# Checking certificates against verifying programs", "",
             f"Generated by `python benchmarks/bench_check.py --repeat {args.repeat}"
             f"{' --cli' if args.cli else ''}` (Python {sys.version.split()[0]}). "
             "In-process medians: *verify* is `verify_program`, *check* is "
             "`checker.kernel.check` with an empty lemma re-check cache (every lemma artifact "
             "the certificate cites is re-checked in every run); the next two columns split "
             "*check* into the rules and SMT re-runs, and the lemma artifact re-checks.", "",
             "| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for r in rows:
        cells = [r["name"], f"{r['verified']}/{r['claims']}", str(r["size"]),
                 f"{r['verify']:.2f}", f"{r['check']:.2f}", f"{r['rules']:.2f}",
                 f"{r['lemmas']:.2f}"]
        if args.cli:
            cells += [f"{r['cli_verify']:.2f}", f"{r['cli_check']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"Totals: verify {total_v:.2f} s, check {total_c:.2f} s, of which "
                  f"{total_r:.2f} s outside the lemma re-checks.", "",
              f"Checking is slower than verifying for {len(slower)} of {len(rows)} programs"
              + (f": {', '.join(slower)}." if slower else ".")]
    if slower:
        lines += ["", "Where it is, the difference is mostly the re-check of the lemma artifacts "
                  "the certificate cites (sympy identities, Z3 steps and Arb enclosures, e.g. the "
                  "Beta and Dirichlet Hellinger bounds behind `beta.hellinger.adjacent.rho`), "
                  "which verifying does not do: the verifier trusts the library, the kernel "
                  "re-checks it. The kernel re-checks each lemma once per process "
                  "(`kernel.LEMMA_CHECKS`), across claims and certificates. Without the lemma "
                  "re-checks, checking is slower than verifying for "
                  f"{len(rules_slower)} of {len(rows)} programs"
                  + (f" ({', '.join(rules_slower)})." if rules_slower else ".")]
    if args.cli:
        imports = import_time("import lemmas, checker.kernel", args.repeat) - import_time(
            "import verifier.verification", args.repeat)
        lines += ["", "End to end (fresh processes, start-up included), `privinfer check` also "
                  "imports the lemma library with sympy, which `privinfer verify` does not load: "
                  f"{imports:.2f} s more start-up here."]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(lines[-1] if not slower else f"slower: {slower}")


if __name__ == "__main__":
    sys.exit(main())
