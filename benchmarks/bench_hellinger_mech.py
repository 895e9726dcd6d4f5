"""Benchmark of the smoothed-Hellinger mechanism (verifier/semantics/hellinger_mech.py).

Usage::

    .venv/bin/python benchmarks/bench_hellinger_mech.py                # every configuration
    .venv/bin/python benchmarks/bench_hellinger_mech.py --only k=5     # those whose label has "k=5"
    .venv/bin/python benchmarks/bench_hellinger_mech.py --extras       # + expectation and release

Each configuration runs in a fresh subprocess so that its peak resident memory
(``ru_maxrss``, which includes the interpreter and numpy: about 45 MB) is its own. Timed:
construction, smooth sensitivity and ``n_draws`` experiment draws (imports excluded), as CPU
seconds of the process (``time.process_time``: steadier than wall time on a shared machine)
and wall seconds, the minimum over ``--repeats`` runs; the load average is printed first.
Targets on CPU seconds (2-core machine, 10,000 draws): k = 2, n = 10,000 < 0.2 s;
k = 3, n = 600 < 1 s; k = 4, n = 600 (36,361,101 candidates) < 15 s and < 4 GiB;
k = 5, n = 600 (5,490,526,251 candidates) < 10 s (issue #22); k = 6, n = 600
(664,353,676,371 candidates) is reported without a target. ``--extras`` enumerates every
candidate, so it is skipped above ``--extras-max`` candidates (default 10^8).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CONFIGS = [
    # (label, prior, counts, target CPU seconds or None)
    ("k=2 n=10000", (1.0, 1.0), (5000, 5000), 0.2),
    ("k=3 n=600", (1.0, 1.0, 1.0), (200, 200, 200), 1.0),
    ("k=4 n=600", (1.0, 1.0, 1.0, 1.0), (150, 150, 150, 150), 15.0),
    ("k=5 n=600", (1.0,) * 5, (120,) * 5, 10.0),
    ("k=6 n=600", (1.0,) * 6, (100,) * 6, None),
]


def run_one(index: int, n_draws: int, extras: bool, repeats: int, extras_max: int) -> dict:
    """Run configuration ``index`` in this process and return its measurements."""
    import numpy as np

    from verifier.semantics.hellinger_mech import HellingerMechanism
    from verifier.semantics.noise import seeded_source

    label, prior, counts, target = CONFIGS[index]
    times, cpu = [], []
    for rep in range(repeats):
        rng = np.random.Generator(np.random.PCG64(rep))
        t0, c0 = time.perf_counter(), time.process_time()
        mech = HellingerMechanism(prior, counts, eps=1.0, delta=1e-8)
        s = mech.smooth_sensitivity()
        draws = mech.sample(n_draws, rng)
        cpu.append(time.process_time() - c0)
        times.append(time.perf_counter() - t0)
    out = {
        "label": label,
        "candidates": mech.candidates_count,
        "local_sensitivity": mech.local_sensitivity(),
        "smooth_sensitivity": s,
        "mean_hellinger_of_draws": float(mech.hellinger(draws).mean()),
        "seconds_best": min(times),
        "seconds_all": times,
        "cpu_best": min(cpu),
        "cpu_all": cpu,
        "target_seconds": target,
    }
    if extras and mech.candidates_count > extras_max:
        out["extras_skipped"] = True
    elif extras:
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
    ap.add_argument("--extras-max", type=int, default=10**8, metavar="N",
                    help="skip --extras above N candidates (default 10^8)")
    ap.add_argument("--only", action="append", default=[], metavar="TEXT",
                    help="run the configurations whose label contains TEXT (repeatable)")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(run_one(args.child, args.draws, args.extras, args.repeats,
                                 args.extras_max)))
        return
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} cores; best of {args.repeats}", flush=True)
    for i, config in enumerate(CONFIGS):
        if args.only and not any(text in config[0] for text in args.only):
            continue
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(i),
               "--draws", str(args.draws), "--repeats", str(args.repeats),
               "--extras-max", str(args.extras_max)]
        if args.extras:
            cmd.append("--extras")
        res = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True,
                                        cwd=ROOT).stdout)
        target = res["target_seconds"]
        if target is None:
            verdict = "no target"
        else:
            verdict = f"target {target} s, {'OK' if res['cpu_best'] < target else 'SLOW'}"
        line = (f"{res['label']:>12}: {res['candidates']:>15,} candidates  "
                f"LS={res['local_sensitivity']:.5f} S={res['smooth_sensitivity']:.5f}  "
                f"{args.draws} draws in {res['cpu_best']:.3f} s CPU, "
                f"{res['seconds_best']:.3f} s wall ({verdict})  "
                f"peak RSS {res['peak_rss_mib']:.0f} MiB  "
                f"mean H of draws {res['mean_hellinger_of_draws']:.4f}")
        if res.get("extras_skipped"):
            line += f"\n{'':>14}extras skipped (more than {args.extras_max:,} candidates)"
        elif args.extras:
            line += (f"\n{'':>14}E[H] = {res['expected_hellinger']:.4f} "
                     f"({res['expected_hellinger_seconds']:.2f} s), one exact release "
                     f"{res['release_seconds']:.2f} s")
        print(line, flush=True)


if __name__ == "__main__":
    main()
