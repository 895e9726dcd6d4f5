"""Checking a certificate against verifying the program: time per shared example.

The issue ([certificates]) asks that checking a certificate take no longer than verifying
the program did. For every shared example (benchmarks/programs/{paper,course,negative}) this
times, in this process, the median over ``--repeat`` runs of

* verify: ``verify_program(program, typed)`` (parsing and simple typing excluded, as in
  ``privinfer bench``);
* check: ``checker.kernel.check(certificate)`` as ``privinfer check`` runs it on a machine
  where the lemma library's artifacts were re-checked before (``checker.lemma_records``:
  a record in a temporary directory, filled by a first check);
* check, lemmas re-checked: ``check(certificate, recheck_lemmas=True)`` with the in-process
  re-check cache emptied first, so that every run re-checks the artifacts of the lemmas the
  certificate cites (as ``privinfer check --recheck-lemmas``, or a first check).

With ``--cli`` it also times ``privinfer verify FILE --certificate`` and ``privinfer check``
end to end in fresh processes (start-up included: the kernel imports the lemma library,
hence sympy, which ``privinfer verify`` does not).

    python benchmarks/bench_check.py [--repeat 3] [--cli] [--out benchmarks/results/check_times.md]
"""
from __future__ import annotations

import argparse
import json
import os
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
    return kernel.check(cert, recheck_lemmas=True)


def recorded_check(cert):
    return kernel.check(cert)


def cli_times(path: Path, repeat: int):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cert.json"
        verify = [sys.executable, "-m", "verifier.cli", "verify", str(path.relative_to(ROOT)),
                  "--certificate", str(out)]
        check = [sys.executable, "-m", "verifier.cli", "check", str(out)]
        v, _ = timed(lambda: subprocess.run(verify, cwd=ROOT, capture_output=True), repeat)
        subprocess.run(check, cwd=ROOT, capture_output=True)  # records the lemmas it re-checks
        c, _ = timed(lambda: subprocess.run(check, cwd=ROOT, capture_output=True), repeat)
    return v, c


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cli", action="store_true", help="also time the commands end to end")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "check_times.md"))
    args = parser.parse_args()
    os.environ["PRIVINFER_CACHE_DIR"] = tempfile.mkdtemp(prefix="privinfer-bench-")
    rows = []
    for d in DIRS:
        for path in sorted((ROOT / "benchmarks" / "programs" / d).glob("*.pinf")):
            program = parse_file(str(path.relative_to(ROOT)))
            typed = typecheck_program(program)
            verify, report = timed(lambda: verify_program(program, typed), args.repeat)
            cert = json.loads(dumps(certificate(report, program.source, program.file)))
            cold, outcome = timed(lambda: cold_check(cert), args.repeat)
            if not outcome.valid:
                print(f"{d}/{path.name}: INVALID: {outcome.reason}", file=sys.stderr)
                return 1
            recorded_check(cert)  # fills the record, if the cold checks did not
            check, outcome = timed(lambda: recorded_check(cert), args.repeat)
            lemmas = cold - check
            row = {"name": f"{d}/{path.name}", "verify": verify, "check": check,
                   "cold": cold, "lemmas": lemmas,
                   "size": len(dumps(cert).encode()) // 1024,
                   "verified": sum(c["verdict"] == "verified" for c in cert["claims"]),
                   "claims": len(cert["claims"])}
            if args.cli:
                row["cli_verify"], row["cli_check"] = cli_times(path, args.repeat)
            rows.append(row)
            print(f"{row['name']:55s} verify {verify:5.2f} s  check {check:5.2f} s "
                  f"(re-checking lemmas {cold:4.2f} s)", flush=True)
    write(rows, args)
    return 0


def write(rows, args) -> None:
    total_v = sum(r["verify"] for r in rows)
    total_c = sum(r["check"] for r in rows)
    total_cold = sum(r["cold"] for r in rows)
    slower = [r["name"] for r in rows if r["check"] > r["verify"]]
    cold_slower = [r["name"] for r in rows if r["cold"] > r["verify"]]
    cli = ["CLI verify (s)", "CLI check (s)"] if args.cli else []
    head = ["program", "claims verified", "certificate (KiB)", "verify (s)", "check (s)",
            "check, lemmas re-checked (s)"] + cli
    lines = ["# Checking certificates against verifying programs", "",
             f"Generated by `python benchmarks/bench_check.py --repeat {args.repeat}"
             f"{' --cli' if args.cli else ''}` (Python {sys.version.split()[0]}). "
             "In-process medians: *verify* is `verify_program`; *check* is "
             "`checker.kernel.check` as `privinfer check` runs it once the lemma library's "
             "artifacts have been re-checked on the machine (they are recorded under the "
             "library's fingerprint, `checker/lemma_records.py`); *check, lemmas re-checked* "
             "re-checks every artifact the certificate cites (`--recheck-lemmas`, or the first "
             "check on a machine).", "",
             "| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for r in rows:
        cells = [r["name"], f"{r['verified']}/{r['claims']}", str(r["size"]),
                 f"{r['verify']:.2f}", f"{r['check']:.2f}", f"{r['cold']:.2f}"]
        if args.cli:
            cells += [f"{r['cli_verify']:.2f}", f"{r['cli_check']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"Totals: verify {total_v:.2f} s, check {total_c:.2f} s, check re-checking "
                  f"the lemmas {total_cold:.2f} s.", "",
              f"Checking is slower than verifying for {len(slower)} of {len(rows)} programs"
              + (f": {', '.join(slower)}." if slower else "."),
              "", f"Re-checking the lemma artifacts too, it is slower for {len(cold_slower)} of "
                  f"{len(rows)} programs: the artifacts (sympy identities, Z3 steps and Arb "
                  "enclosures, e.g. the Beta and Dirichlet Hellinger bounds) are proofs the "
                  "verifier trusts and the kernel re-checks."]
    if args.cli:
        slower_cli = [r["name"] for r in rows if r["cli_check"] > r["cli_verify"]]
        lines += ["", f"End to end (fresh processes, start-up included, lemmas recorded): "
                  f"`privinfer check` is slower than `privinfer verify` for {len(slower_cli)} "
                  f"of {len(rows)} programs; the kernel loads jsonschema, which the verifier "
                  "does not."]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(lines[-1] if not slower else f"slower: {slower}")


if __name__ == "__main__":
    sys.exit(main())
