"""Benchmark of the smoothed-Hellinger mechanism (verifier/semantics/hellinger_mech.py).

Usage::

    .venv/bin/python benchmarks/bench_hellinger_mech.py            # the three targets
    .venv/bin/python benchmarks/bench_hellinger_mech.py --extras   # + expectation and release

Each configuration runs in a fresh subprocess so that its peak resident memory
(``ru_maxrss``, which includes the interpreter, numpy and scipy: about 60-80 MB) is its own.
Timed: construction, smooth sensitivity and ``n_draws`` experiment draws (imports excluded).
Targets (2-core machine, 10,000 draws): k = 2, n = 10,000 < 0.2 s; k = 3, n = 600 < 1 s;
k = 4, n = 600 (36,361,101 candidates) < 15 s and < 4 GiB.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CONFIGS = [
    # (label, prior, counts, target seconds)
    ("k=2 n=10000", (1.0, 1.0), (5000, 5000), 0.2),
    ("k=3 n=600", (1.0, 1.0, 1.0), (200, 200, 200), 1.0),
    ("k=4 n=600", (1.0, 1.0, 1.0, 1.0), (150, 150, 150, 150), 15.0),
]


def run_one(index: int, n_draws: int, extras: bool, repeats: int) -> dict:
    """Run configuration ``index`` in this process and return its measurements."""
    import numpy as np

    from verifier.semantics.hellinger_mech import HellingerMechanism
    from verifier.semantics.noise import seeded_source

    label, prior, counts, target = CONFIGS[index]
    times = []
    for rep in range(repeats):
        rng = np.random.Generator(np.random.PCG64(rep))
        t0 = time.perf_counter()
        mech = HellingerMechanism(prior, counts, eps=1.0, delta=1e-8)
        s = mech.smooth_sensitivity()
        draws = mech.sample(n_draws, rng)
        times.append(time.perf_counter() - t0)
    out = {
        "label": label,
        "candidates": mech.candidates_count,
        "local_sensitivity": mech.local_sensitivity(),
        "smooth_sensitivity": s,
        "mean_hellinger_of_draws": float(mech.hellinger(draws).mean()),
        "seconds_best": min(times),
        "seconds_all": times,
        "target_seconds": target,
    }
    if extras:
        t0 = time.perf_counter()
        out["expected_hellinger"] = mech.expected_hellinger()
        out["expected_hellinger_seconds"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        out["release_seeded"] = list(mech.release(seeded_source(1)))
        out["release_seconds"] = time.perf_counter() - t0
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--draws", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--extras", action="store_true",
                    help="also time expected_hellinger() and one release()")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(run_one(args.child, args.draws, args.extras, args.repeats)))
        return
    for i in range(len(CONFIGS)):
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(i),
               "--draws", str(args.draws), "--repeats", str(args.repeats)]
        if args.extras:
            cmd.append("--extras")
        res = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True,
                                        cwd=ROOT).stdout)
        ok = "OK" if res["seconds_best"] < res["target_seconds"] else "SLOW"
        line = (f"{res['label']:>12}: {res['candidates']:>11,} candidates  "
                f"LS={res['local_sensitivity']:.5f} S={res['smooth_sensitivity']:.5f}  "
                f"{args.draws} draws in {res['seconds_best']:.3f} s "
                f"(target {res['target_seconds']} s, {ok})  "
                f"peak RSS {res['peak_rss_mib']:.0f} MiB  "
                f"mean H of draws {res['mean_hellinger_of_draws']:.4f}")
        if args.extras:
            line += (f"\n{'':>14}E[H] = {res['expected_hellinger']:.4f} "
                     f"({res['expected_hellinger_seconds']:.2f} s), one exact release "
                     f"{res['release_seconds']:.2f} s")
        print(line, flush=True)


if __name__ == "__main__":
    main()
