"""Checking a certificate against verifying the program: time per shared example.

The issue ([certificates]) asks that checking a certificate take no longer than verifying
the program did. For every shared example (benchmarks/programs/{paper,course,negative}) this
measures, as medians over ``--repeat`` runs, wall and CPU time of:

* in process, cold: the first call in a fresh worker process (the modules imported, the
  program parsed and typed or the certificate's JSON loaded beforehand) of
  ``verify_program(program, typed)`` (as in ``privinfer bench``) and of
  ``checker.kernel.check(certificate)`` on a machine whose lemma record
  (``checker.lemma_records``) holds the lemmas the certificate cites, as ``privinfer check``
  runs it; so both pay their lazy imports and fill their term caches (``functools`` memos
  of ``obligations``) from empty;
* in process, warm: a second call in the same worker, the caches filled by the first (what
  a long-running process or a benchmark loop sees);
* check with the lemmas re-checked: the first ``check(certificate, recheck_lemmas=True)`` in
  a fresh worker (``privinfer check --recheck-lemmas``, or the first check on a machine):
  it loads the lemma library (sympy) and re-checks the artifacts of the lemmas cited;
* with ``--cli``, end to end, as a user runs the commands: ``privinfer verify FILE`` and
  ``privinfer check CERT`` (``python -m verifier.cli``), each in a fresh process, start-up
  included, the lemma record filled; CPU time is the children's (``RUSAGE_CHILDREN``).

Runs of the two sides alternate, each check right after its verify, and the table gives,
besides the medians, the median over the repeats of the ratio check / verify of each such
pair: on a machine whose speed drifts (here by up to a factor two from one second to the
next) a paired comparison is the one that noise disturbs least. The lemma record lives in a
temporary directory (``PRIVINFER_CACHE_DIR``), filled by one check per program.

    python benchmarks/bench_check.py [--repeat 3] [--cli] [--out benchmarks/results/check_times.md]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIRS = ("paper", "course", "negative")
SIDES = ("verify", "check", "recheck")


def worker(side: str, path: str) -> None:
    """Run one side once cold and once warm in this (fresh) process; print the times."""
    sys.path.insert(0, str(ROOT))
    if side == "verify":
        from verifier.language.parser import parse_file
        from verifier.language.typecheck import typecheck_program
        from verifier.verification import verify_program
        program = parse_file(path)
        typed = typecheck_program(program)

        def run() -> bool:
            verify_program(program, typed)
            return True
    else:
        from checker import kernel
        data = kernel.load(path)

        def run() -> bool:
            return kernel.check(data, recheck_lemmas=side == "recheck").valid
    times = []
    for _ in range(1 if side == "recheck" else 2):
        wall, cpu = time.perf_counter(), time.process_time()
        valid = run()
        times.append([time.perf_counter() - wall, time.process_time() - cpu])
    print(json.dumps({"times": times, "valid": valid}))


def in_process(side: str, path: Path) -> dict:
    done = subprocess.run([sys.executable, __file__, "--worker", side, str(path)], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{side} {path}: {done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def command(args) -> list:
    """(wall, CPU) seconds of ``python -m verifier.cli ARGS`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    subprocess.run([sys.executable, "-m", "verifier.cli", *args], cwd=ROOT, capture_output=True)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return [wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime]


def median(pairs) -> list:
    """Median wall and CPU seconds."""
    return [statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)]


def ratios(checks, verifies) -> list:
    """Median over the repeats of check / verify, wall and CPU, each check timed right after
    its verify (the machine's speed drifts less within a pair than between repeats)."""
    return [statistics.median(c[i] / v[i] for c, v in zip(checks, verifies)) for i in (0, 1)]


def measure(path: Path, cert: Path, repeat: int, cli: bool) -> dict:
    runs = {k: [] for k in ("verify", "check", "verify_warm", "check_warm", "recheck",
                            "cli_verify", "cli_check")}
    rel = str(path.relative_to(ROOT))
    for _ in range(repeat):
        for side, target in (("verify", rel), ("check", cert), ("recheck", cert)):
            out = in_process(side, target)
            if side != "verify" and not out["valid"]:
                raise RuntimeError(f"{rel}: the certificate does not check")
            runs[side].append(out["times"][0])
            if len(out["times"]) > 1:
                runs[f"{side}_warm"].append(out["times"][1])
        if cli:
            runs["cli_verify"].append(command(["verify", rel]))
            runs["cli_check"].append(command(["check", str(cert)]))
    out = {k: median(v) for k, v in runs.items() if v}
    out["ratio"] = ratios(runs["check"], runs["verify"])
    if cli:
        out["cli_ratio"] = ratios(runs["cli_check"], runs["cli_verify"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cli", action="store_true", help="also time the commands end to end")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "check_times.md"))
    parser.add_argument("--worker", nargs=2, metavar=("SIDE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="privinfer-bench-") as tmp:
        os.environ["PRIVINFER_CACHE_DIR"] = tmp  # the lemma record, and the certificates
        for d in DIRS:
            for path in sorted((ROOT / "benchmarks" / "programs" / d).glob("*.pinf")):
                name = f"{d}/{path.name}"
                cert = Path(tmp) / f"{d}-{path.stem}.json"
                rel = str(path.relative_to(ROOT))
                subprocess.run([sys.executable, "-m", "verifier.cli", "verify", rel,
                                "--certificate", str(cert)], cwd=ROOT, capture_output=True)
                if subprocess.run([sys.executable, "-m", "verifier.cli", "check", str(cert)],
                                  cwd=ROOT, capture_output=True).returncode != 0:
                    print(f"{name}: INVALID certificate", file=sys.stderr)
                    return 1  # (that first check also fills the lemma record)
                data = json.loads(cert.read_text())
                row = {"name": name, "size": cert.stat().st_size // 1024,
                       "verified": sum(c["verdict"] == "verified" for c in data["claims"]),
                       "claims": len(data["claims"]),
                       **measure(path, cert, args.repeat, args.cli)}
                rows.append(row)
                print(f"{name:55s} cold: verify {row['verify'][0]:5.2f} s, check "
                      f"{row['check'][0]:5.2f} s" + (
                          f"; commands: verify {row['cli_verify'][0]:5.2f} s, check "
                          f"{row['cli_check'][0]:5.2f} s" if args.cli else ""), flush=True)
    write(rows, args)
    return 0


def slower(rows, verify: str, check: str, i: int) -> list:
    return [r["name"] for r in rows if r[check][i] > r[verify][i]]


def write(rows, args) -> None:
    def cell(pair) -> str:
        return f"{pair[0]:.2f} / {pair[1]:.2f}"

    cli = ["command: verify", "command: check", "command: check / verify"] if args.cli else []
    head = ["program", "claims verified", "certificate (KiB)", "verify, cold", "check, cold",
            "check / verify, cold", "verify, warm", "check, warm",
            "check, lemmas re-checked"] + cli
    lines = ["# Checking certificates against verifying programs", "",
             f"Generated by `python benchmarks/bench_check.py --repeat {args.repeat}"
             f"{' --cli' if args.cli else ''}` (Python {sys.version.split()[0]}): medians of "
             f"{args.repeat} runs, *wall / CPU* seconds; *check / verify*: the median over the "
             "runs of the ratio of a check to the verify run just before it (a paired "
             "comparison: the machine's speed drifts, by up to a factor two, between runs more "
             "than within a pair). *cold*: the first call in a fresh "
             "process (modules imported, program parsed and typed or certificate loaded "
             "before) of `verify_program` and of `checker.kernel.check` with the lemma record "
             "filled (`checker/lemma_records.py`), as `privinfer check` runs; *warm*: a second "
             "call in that process, its term caches filled; *lemmas re-checked*: the first "
             "`check(..., recheck_lemmas=True)` in a fresh process (`--recheck-lemmas`, or the "
             "first check on a machine: it loads sympy and re-checks every artifact cited)"
             + ("; *command*: `privinfer verify FILE` and `privinfer check CERT` end to end, "
                "each in a fresh process (CPU: the child's)." if args.cli else "."), "",
             "| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for r in rows:
        cells = [r["name"], f"{r['verified']}/{r['claims']}", str(r["size"]), cell(r["verify"]),
                 cell(r["check"]), cell(r["ratio"]), cell(r["verify_warm"]),
                 cell(r["check_warm"]), cell(r["recheck"])]
        if args.cli:
            cells += [cell(r["cli_verify"]), cell(r["cli_check"]), cell(r["cli_ratio"])]
        lines.append("| " + " | ".join(cells) + " |")

    def total(key: str) -> str:
        return f"{sum(r[key][0] for r in rows):.2f} s"

    lines += ["", f"Totals (wall): verify {total('verify')}, check {total('check')} cold; "
                  f"verify {total('verify_warm')}, check {total('check_warm')} warm; check "
                  f"re-checking the lemmas {total('recheck')}"
              + (f"; commands: verify {total('cli_verify')}, check {total('cli_check')}."
                 if args.cli else "."), ""]
    comparisons = [("in process, cold", "verify", "check", "ratio")]
    if args.cli:
        comparisons.append(("end to end (commands)", "cli_verify", "cli_check", "cli_ratio"))
    for what, v, c, ratio in comparisons:
        for i, unit in enumerate(("wall", "CPU")):
            found = slower(rows, v, c, i)
            paired = [r["name"] for r in rows if r[ratio][i] > 1]
            lines.append(f"* {what}, {unit} time: checking is slower than verifying for "
                         f"{len(paired)} of {len(rows)} programs by the median of the paired "
                         "ratios" + (f" ({', '.join(paired)})" if paired else "")
                         + f", for {len(found)} by the medians"
                         + (f" ({', '.join(found)})." if found else "."))
    found = slower(rows, "verify_warm", "check_warm", 0)
    lines.append(f"* in process, warm, wall time (for comparison): slower for {len(found)} of "
                 f"{len(rows)}" + (f": {', '.join(found)}." if found else "."))
    found = slower(rows, "verify", "recheck", 0)
    lines += ["", f"Re-checking the lemma artifacts too, checking is slower than verifying "
                  f"(cold, wall) for {len(found)} of {len(rows)} programs: the artifacts "
                  "(sympy identities, Z3 steps and Arb enclosures, e.g. the Beta and Dirichlet "
                  "Hellinger bounds) are proofs the verifier trusts and the kernel re-checks, "
                  "once per machine and library fingerprint."]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(line for line in lines if line.startswith("* ")))


if __name__ == "__main__":
    sys.exit(main())
