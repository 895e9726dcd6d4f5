"""Verification and checking cost against the size of the program (issue [scale]).

Two shapes a verifier must not choke on, at n = 250, 500 and 1000:

* a constant list of n elements used in a release (``let xs = [...] in lapMech (eps, count db
  + sum xs)``): candidate lists, category lists and public data written into a program;
* a chain of n binds (``mlet x_i = lapMech (eps, count db) in ...``) claimed at ``n * eps``.

For each, ``privinfer verify`` (in process: parse, type, verify) and ``privinfer check`` of
its certificate, as CPU seconds, the minimum of ``--repeat`` runs (a loaded machine slows a
run, never speeds one up), each run in a fresh process (no warm caches), and the growth
exponent between n = 250 and n = 1000: log(t(1000) / t(250)) / log(4) (1 is linear).

    python benchmarks/bench_scale.py [--repeat 3] [--sizes 250,500,1000]
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import json, resource, sys, threading, time
sys.setrecursionlimit(1_000_000)
threading.stack_size(512 * 1024 * 1024)
out = {}
def main():
    from checker import certify, kernel
    from verifier.language.parser import parse_program
    from verifier.language.typecheck import typecheck_program
    from verifier.verification import verify_program
    text = open(sys.argv[1]).read()
    t = time.process_time()
    program = parse_program(text, "scale.pinf")
    report = verify_program(program, typecheck_program(program))
    out["verify"] = time.process_time() - t
    out["verdicts"] = [c.verdict for c in report.claims]
    cert = json.loads(certify.dumps(certify.certificate(report, text, "scale.pinf")))
    t = time.process_time()
    outcome = kernel.check(cert)
    out["check"] = time.process_time() - t
    out["valid"] = outcome.valid
th = threading.Thread(target=main); th.start(); th.join()
print(json.dumps(out))
"""


def constant_list(n: int) -> str:
    xs = "; ".join(f"{i % 7}.5" for i in range(n))
    return ("val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} "
            "-> M[DP(eps)] {r :: real | =}\n"
            f"let main db eps = let xs = [{xs}] in lapMech (eps, count db + sum xs)\n")


def bind_chain(n: int) -> str:
    body = "".join(f"  mlet x{i} = lapMech (eps, count db) in\n" for i in range(n))
    return ("val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} "
            f"-> M[DP({n}.0 * eps)] {{r :: real | =}}\nlet main db eps =\n{body}  return x0\n")


def measure(text: str, repeat: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".pinf", delete=False) as f:
        f.write(text)
    runs = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", WORKER, f.name], cwd=ROOT,
                              capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    Path(f.name).unlink()
    best = {k: min(r[k] for r in runs) for k in ("verify", "check")}
    assert all(r["verdicts"] == ["verified"] and r["valid"] for r in runs), runs
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="250,500,1000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for name, make in (("constant list", constant_list), ("bind chain", bind_chain)):
        times = {n: measure(make(n), args.repeat) for n in sizes}
        for n in sizes:
            print(f"{name:<14} n = {n:>5}: verify {times[n]['verify']:6.2f} s, "
                  f"check {times[n]['check']:6.2f} s (CPU, min of {args.repeat})")
        lo, hi = min(sizes), max(sizes)
        for side in ("verify", "check"):
            exponent = math.log(times[hi][side] / times[lo][side]) / math.log(hi / lo)
            print(f"{name:<14} growth exponent of {side} between n = {lo} and n = {hi}: "
                  f"{exponent:.2f}")


if __name__ == "__main__":
    main()
