"""The campaign's report: counts, coverage, failures (as text, as JSON, and as files).

``CampaignReport.add(case)`` accumulates one program. ``to_json()`` has at least ``generated``,
``verified``, ``audited``, ``failures`` and ``coverage`` (issue 13); ``render()`` is the text
``privinfer fuzz`` prints; ``write(out_dir)`` writes every shrunk failure to a directory of its
own (``NNN-kind-claim-seedS/``: ``program.pinf`` the minimised program, ``original.pinf``,
``verifier.txt`` the verifier's output on the minimised program, ``witness.json`` and
``witness.txt`` the oracle's witness, ``variant.pinf`` for a metamorphic failure, ``kernel.txt``)
and ``report.json`` / ``report.txt``.

Failure classes: shrunk failures are grouped by kind and by the features of their minimised
program (``coverage.features``), so that one class is one way the verifier goes wrong.
"""
from __future__ import annotations

import json
import math
import os
import statistics
from collections import Counter
from typing import Any, Dict, List, Tuple

from verifier.fuzz import coverage
from verifier.fuzz.case import KINDS, Case, Config, Failure, parse_and_type

#: The slowest programs the report names (with ``--program I`` each can be replayed alone).
SLOWEST = 5

#: Features that mark how a program may slip past a verifier (used to pick which failures to
#: shrink first: one per combination).
HOLES = ("computation bound by let, used 0 times", "computation bound by let, used 1 time",
         "computation bound by let, used 2 times", "helper without val", "shadowed built-in (local)",
         "redefined built-in before a val", "redefined built-in after a val", "local shadows a val'd name",
         "local shadows the entry's name", "non-structural recursion", "public parameter refined with true",
         "adjWithin with a non-positive bound", "closure over the private list", "alias",
         "partial application", "one-sided refinement", "refinement true", "val after its definition")


class CampaignReport:
    """Counts over a campaign (see the module docstring)."""

    def __init__(self, config: Config):
        self.config = config
        self.generated = 0
        self.discarded = 0
        self.discard_reasons: Counter = Counter()
        self.claims: Counter = Counter()              # verdict -> claims
        self.audited = 0                              # verified claims the oracle judged
        self.holds = 0
        self.unjudged = 0
        self.unjudged_reasons: Counter = Counter()
        self.failures: List[Failure] = []
        self.metamorphic_checked = 0
        self.coverage: Counter = Counter()
        self.times: List[float] = []
        self.slowest: List[Tuple[float, int]] = []   # (seconds, program index), slowest first
        self.seconds = 0.0
        self._shrunk_keys: set = set()
        self.shrunk = 0

    # ---- accumulation ----

    def add(self, case: Case) -> None:
        self.generated += 1
        self.times.append(case.seconds)
        self.slowest = sorted(self.slowest + [(case.seconds, case.index)], reverse=True)[:SLOWEST]
        if case.status == "discarded":
            self.discarded += 1
            self.discard_reasons[case.reason.split(":")[0]] += 1
            return
        self.coverage.update(case.features)
        self.claims.update(case.verdicts.values())
        for judgement in case.judgements.values():
            if judgement.status == "unjudged":
                self.unjudged += 1
                self.unjudged_reasons[_reason_class(judgement.reason)] += 1
            else:
                self.audited += 1
                self.holds += judgement.status == "holds"
        self.metamorphic_checked += case.metamorphic_checked
        self.failures += case.failures

    def is_new(self, failure: Failure) -> bool:
        """Whether no failure of this kind with the same hole features was shrunk yet (and
        records it)."""
        key = (failure.kind, tuple(sorted(set(failure.features) & set(HOLES))))
        if key in self._shrunk_keys:
            return False
        self._shrunk_keys.add(key)
        self.shrunk += 1
        return True

    def shrink_budget_left(self) -> bool:
        return self.shrunk < self.config.max_shrinks

    # ---- summaries ----

    def failures_by_kind(self) -> Dict[str, int]:
        counts = Counter(f.kind for f in self.failures)
        return {k: counts[k] for k in KINDS if counts[k]}

    def kernel_failures(self) -> int:
        return sum(f.kernel_accepted for f in self.failures)

    def classes(self) -> List[Tuple[Tuple[str, Tuple[str, ...]], List[Failure]]]:
        """Shrunk failures grouped by kind and the features of the minimised program."""
        groups: Dict[Tuple[str, Tuple[str, ...]], List[Failure]] = {}
        for f in self.failures:
            if f.shrunk is None:
                continue
            parsed = parse_and_type(f.shrunk)
            feats = tuple(sorted(coverage.features(*parsed))) if not isinstance(parsed, str) else ()
            groups.setdefault((f.kind, feats), []).append(f)
        return sorted(groups.items(), key=lambda kv: (KINDS.index(kv[0][0]), len(kv[0][1])))

    def per_program(self) -> Dict[str, float]:
        if not self.times:
            return {"mean": 0.0, "median": 0.0, "max": 0.0, "slowest": []}
        return {"mean": round(statistics.fmean(self.times), 4), "median": round(statistics.median(self.times), 4),
                "max": round(max(self.times), 4),
                "slowest": [{"program": i, "seconds": round(t, 2)} for t, i in self.slowest]}

    def to_json(self) -> Dict[str, Any]:
        checked = self.generated - self.discarded
        return {
            "seed": self.config.seed, "generated": self.generated, "discarded": self.discarded,
            "discard_reasons": dict(self.discard_reasons.most_common()),
            "checked": checked,
            "claims": sum(self.claims.values()),
            "verified": self.claims["verified"],
            "rejected": sum(v for k, v in self.claims.items() if k not in ("verified", "unknown")),
            "unknown": self.claims["unknown"], "verdicts": dict(self.claims),
            "audited": self.audited, "holds": self.holds,
            "unjudged": self.unjudged, "unjudged_reasons": dict(self.unjudged_reasons.most_common()),
            "metamorphic_checked": self.metamorphic_checked,
            "failures": len(self.failures),
            "failures_by_kind": self.failures_by_kind(),
            "kernel_failures": self.kernel_failures(),
            "failure_list": [f.to_json() for f in self.failures],
            "coverage": {k: self.coverage[k] for k in sorted(self.coverage)},
            "uncovered": [k for k in coverage.REQUIRED if not self.coverage[k]],
            "seconds": round(self.seconds, 2),
            "seconds_per_program": self.per_program(),
        }

    def render(self, coverage_lines: bool = True) -> str:
        j = self.to_json()
        lines = [f"privinfer fuzz: seed {j['seed']}, {j['generated']} programs in {j['seconds']} s "
                 f"({j['seconds_per_program']['mean']:.3f} s per program)",
                 f"  generated {j['generated']}, discarded {j['discarded']} (did not type)"
                 + (f": {', '.join(f'{k} {v}' for k, v in j['discard_reasons'].items())}" if j['discarded'] else ""),
                 f"  claims {j['claims']}: verified {j['verified']}, rejected {j['rejected']}, unknown {j['unknown']}",
                 f"  audited {j['audited']} verified claims with the exact oracle: {j['holds']} hold; "
                 f"{j['unjudged']} could not be judged"
                 + (f" ({', '.join(f'{k} {v}' for k, v in j['unjudged_reasons'].items())})" if j['unjudged'] else ""),
                 f"  metamorphic checks {j['metamorphic_checked']}"]
        if j["seconds_per_program"]["slowest"]:
            lines.append("  slowest programs: " + ", ".join(
                f"{p['program']} ({p['seconds']} s)" for p in j["seconds_per_program"]["slowest"]))
        if j["failures"]:
            kinds = ", ".join(f"{k} {v}" for k, v in j["failures_by_kind"].items())
            lines.append(f"  FAILURES {j['failures']}: {kinds}; the kernel accepted the certificate of "
                         f"{j['kernel_failures']}")
            for (kind, feats), members in self.classes():
                f = members[0]
                lines.append(f"    {kind}: {len(members)} shrunk failure(s) like seed {f.seed} ({f.claim or 'program'}); "
                             f"kernel {f.shrunk_kernel or f.kernel or 'not checked'}")
        else:
            lines.append("  no failure")
        if coverage_lines:
            lines.append("  coverage (programs using each construct):")
            for k in coverage.REQUIRED:
                lines.append(f"    {self.coverage[k]:6d}  {k}")
            missing = j["uncovered"]
            if missing:
                lines.append(f"  NOT COVERED: {', '.join(missing)}")
        return "\n".join(lines)

    # ---- files ----

    def write(self, out_dir: str) -> List[str]:
        """Write the report and every shrunk failure under ``out_dir``; returns the
        directories written."""
        os.makedirs(out_dir, exist_ok=True)
        written = []
        for n, f in enumerate((f for f in self.failures if f.shrunk is not None), 1):
            d = os.path.join(out_dir, f"{n:03d}-{f.kind}-{f.claim or 'program'}-seed{f.seed}")
            os.makedirs(d, exist_ok=True)
            kernel = f.shrunk_kernel or f.kernel or "not checked"
            header = (f"(* privinfer fuzz: {f.kind} failure of {f.claim or 'the program'} (seed {f.seed});"
                      f" verifier: {f.verdict or '-'}; kernel: {kernel} *)\n")
            _write(d, "program.pinf", header + f.shrunk)
            _write(d, "original.pinf", f.program)
            _write(d, "verifier.txt", f.shrunk_output)
            if f.witness is not None:
                _write(d, "witness.json", json.dumps(f.witness.to_json(), indent=2) + "\n")
                _write(d, "witness.txt", f.witness.render() + "\n")
            if f.variant:
                _write(d, "variant.pinf", f.variant)
            _write(d, "kernel.txt", f"minimised program: {f.shrunk_kernel or 'not checked'}\n"
                                    f"original program: {f.kernel or 'not checked'}\n")
            _write(d, "message.txt", f.message + "\n")
            written.append(d)
        _write(out_dir, "report.json", json.dumps(self.to_json(), indent=2, default=_jsonable) + "\n")
        _write(out_dir, "report.txt", self.render() + "\n")
        return written


def _write(d: str, name: str, text: str) -> None:
    with open(os.path.join(d, name), "w", encoding="utf-8") as fh:
        fh.write(text)


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and math.isinf(x):
        return "infinity"
    return str(x)


def _reason_class(reason: str) -> str:
    """A short class for an unjudged claim's reason (for the counts)."""
    for needle, label in (("continuous", "continuous output"), ("noise is post-processed", "continuous output"),
                          ("R003", "not exactly computable"), ("cannot enumerate", "parameter not enumerable"),
                          ("argument tuples", "too many inputs"), ("satisfies", "no covered pair"),
                          ("R009", "enumeration too large"), ("not a computation", "result not a computation")):
        if needle in reason:
            return label
    return "other"


__all__ = ["CampaignReport", "HOLES"]
