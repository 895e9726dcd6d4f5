"""Smoke test of the plain install (``pip install -e .``, no test extras): every command of
``privinfer`` runs, and every built-in of LANGUAGE.md runs (``.ci/builtins.pinf``).

Usage: ``python .ci/plain_install.py VENV_BIN`` where ``VENV_BIN`` is the ``bin`` directory of
a fresh virtual environment holding the plain install. Exits 1 on the first failure (a non-zero
exit status, or an internal error), printing the command and its output.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILTINS = ROOT / ".ci" / "builtins.pinf"
PAPER = ROOT / "benchmarks" / "programs" / "paper" / "beta_output_hellinger.pinf"
FINITE = ROOT / "benchmarks" / "programs" / "classic" / "randomized_response.pinf"


def run(privinfer: Path, *args: str) -> str:
    command = [str(privinfer), *args]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600)
    if done.returncode != 0 or "internal error" in done.stderr:
        print(f"FAILED ({done.returncode}): {' '.join(command)}\n{done.stdout}\n{done.stderr}")
        sys.exit(1)
    return done.stdout


def main() -> None:
    privinfer = Path(sys.argv[1]) / "privinfer"
    entries = re.findall(r"^let (b_\w+)", BUILTINS.read_text(), re.M)
    for entry in entries:
        run(privinfer, "run", str(BUILTINS), entry, "--seed", "1")
    print(f"run: {len(entries)} built-in programs")
    with tempfile.TemporaryDirectory() as tmp:
        cert = str(Path(tmp) / "cert.json")
        run(privinfer, "parse", str(PAPER))
        run(privinfer, "typecheck", str(PAPER))
        run(privinfer, "verify", str(PAPER), "--certificate", cert)
        run(privinfer, "check", cert)
        run(privinfer, "audit", str(FINITE), "survey", "--n", "3", "--arg", "eps=1.0")
        run(privinfer, "run", str(FINITE), "survey", "--arg", "db=[true; false]", "--arg", "eps=1.0")
        run(privinfer, "lemmas")
        run(privinfer, "bench", "--filter", "randomized_response")
        run(privinfer, "experiment", "accuracy", "--quick", "--no-progress", "--out", tmp)
    print("every command ran with the plain install")


if __name__ == "__main__":
    main()
