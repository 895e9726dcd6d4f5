"""The benchmark runner behind ``privinfer bench``.

The suite is every ``*.pinf`` file under ``benchmarks/programs/`` (``PROGRAMS``). Each file
states its expected outcome in its first comment (the *expectation header*, parsed by
``parse_expectation``; the format is specified there and in ``benchmarks/README.md``). For every
selected program the runner parses and simply types it once, then times
``verify_program`` ``repeat`` times in this process with ``time.perf_counter`` and records:

* the expected and the actual verdict of the file, in the verifier's vocabulary
  (``verifier.verification.VERDICTS``): *verified* when every claim is verified, *refuted* when
  some claim is refuted (shown false by a witness), *unknown* otherwise; *error* when the file
  cannot be verified at all (bad header, parse or type error, a crash of the verifier);
* each claim's verdict, guarantee in words (``ClaimReport.guarantee``) or reason of failure;
* the derivation size and the obligations counted by kind and by how they were discharged;
* the median verify time over the repeats, and the median certificate-check time when a
  ``certifier`` is given (the hook for ``privinfer check``; ``None`` — shown "n/a" — otherwise).

``compare`` decides whether the outcome matches the expectation; ``write_results`` writes
``results.json`` and ``results.md``; ``summary_text`` is the terminal summary. A suite run
*passes* when no program is a mismatch (``SuiteResult.ok``).
"""
from __future__ import annotations

import datetime
import fnmatch
import json
import os
import platform
import re
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from tqdm import tqdm

from verifier.errors import PrivInferError
from verifier.language.parser import parse_file
from verifier.language.typecheck import typecheck_program
from verifier.verification import REFUTED, UNKNOWN, VERIFIED, ClaimReport, Report, verify_program

#: the suite's root folder and the default output folder of ``privinfer bench``
BENCHMARKS = Path(__file__).resolve().parent
PROGRAMS = BENCHMARKS / "programs"
RESULTS = BENCHMARKS / "results"

#: verdicts a header may expect: the verifier's three, and ``rejected`` for "not verified"
#: (the shared examples' headers), which a refuted or an unknown outcome meets
EXPECT_VERIFIED, EXPECT_REFUTED, EXPECT_UNKNOWN = VERIFIED, REFUTED, UNKNOWN
EXPECT_REJECTED = "rejected"
EXPECTED_VERDICTS = (EXPECT_VERIFIED, EXPECT_REFUTED, EXPECT_UNKNOWN, EXPECT_REJECTED)
#: what a file gets: a verdict of the verifier, or ``error``
ACTUAL_VERIFIED, ACTUAL_REFUTED, ACTUAL_UNKNOWN, ACTUAL_ERROR = VERIFIED, REFUTED, UNKNOWN, "error"

#: statuses of a program's outcome
OK, LIMITATION, MISMATCH = "ok", "limitation", "mismatch"

#: ``certifier(program_path, report) -> seconds``: see ``run_program``
Certifier = Callable[[Path, Report], float]
#: ``auditor(program_path) -> [(cell text, soundness bug?)]``: see ``run_program``
Auditor = Callable[[Path], List[Tuple[str, bool]]]


def certify_and_check(path: Path, report: Report) -> float:
    """Write the certificate of ``report`` (the verification of ``path``) and check it with
    the independent kernel; return the seconds the check took. A certificate that does not
    check is an error of the verifier: ``CertificateRejected`` names the kernel's reason."""
    from checker import certify, kernel
    cert = json.loads(certify.dumps(certify.certificate(report, Path(path).read_text(
        encoding="utf-8"), str(path))))
    start = time.perf_counter()
    outcome = kernel.check(cert)
    seconds = time.perf_counter() - start
    if not outcome.valid:
        raise CertificateRejected(f"the certificate does not check: {outcome.reason}")
    return seconds


class CertificateRejected(Exception):
    """The independent kernel refused a certificate the verifier wrote."""


def exact_audits(path: Path) -> List[Tuple[str, bool]]:
    """The exact privacy audits that apply to ``path`` (``verifier.audit.bench_audits``): one
    cell per audit, and whether the audit found a verified guarantee below the exact loss."""
    from verifier.audit import bench_audits
    from verifier.claim_audit import audit_program
    cells = []
    for spec in bench_audits(path):
        result = audit_program(path, spec.entry, spec.n, spec.args)
        cells.append((result.bench_cell(), bool(result.soundness_bug)))
    return cells


# ---- the expectation header -------------------------------------------------------------------

class HeaderError(ValueError):
    """The file's first comment is not a valid expectation header."""


class NoPrograms(ValueError):
    """No benchmark program is selected."""


@dataclass(frozen=True)
class Expectation:
    """What a benchmark file expects of the verifier.

    ``verdict`` is ``verified``; ``refuted`` (some claim is false and the verifier must show it);
    ``rejected`` (some claim is not verified: refuted or unknown, as the shared examples' headers
    say); or ``unknown`` (the claims are believed true but the verifier is known not to prove
    them: the outcome must be unknown — *verified* means the header is out of date, *refuted*
    would refute a true claim).
    ``summary`` is the free text after the verdict; ``guarantees`` maps claim names to the exact
    guarantee text expected of them (whitespace normalised), and is only allowed with
    ``verified``.
    """

    verdict: str
    summary: str = ""
    guarantees: Dict[str, str] = field(default_factory=dict)

    def to_json(self) -> Dict[str, Any]:
        return {"verdict": self.verdict, "summary": self.summary,
                "guarantees": dict(self.guarantees)}


_EXPECT = re.compile(r"expect:[ \t]*([A-Za-z]+)[ \t]*(?::(.*))?\Z", re.DOTALL)
_GUARANTEE = re.compile(r"guarantee:(.*)\Z", re.DOTALL)
_CLAIM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_']*\Z")


def normalize(text: str) -> str:
    """``text`` with every run of whitespace replaced by one space, and trimmed."""
    return " ".join(text.split())


def first_comment(source: str) -> str:
    """The body of the comment that starts ``source`` (after leading whitespace).

    Comments nest, as in the language. Raises ``HeaderError`` when the source does not start
    with a comment or the comment is not closed.
    """
    text = source.lstrip()
    if not text.startswith("(*"):
        raise HeaderError("the file must start with an expectation comment (* expect: ... *)")
    depth, i = 0, 0
    while i < len(text) - 1:
        pair = text[i:i + 2]
        if pair == "(*":
            depth, i = depth + 1, i + 2
        elif pair == "*)":
            depth, i = depth - 1, i + 2
            if depth == 0:
                return text[2:i - 2]
        else:
            i += 1
    raise HeaderError("the expectation comment is not closed")


def parse_expectation(source: str) -> Expectation:
    """Parse the expectation header of a benchmark file's source text.

    The header is the file's first comment. Its *first paragraph* (up to the first blank
    line) holds the machine-readable part; the rest is free explanation and is ignored::

        (* expect: VERDICT[: SUMMARY]
           guarantee: CLAIM : GUARANTEE TEXT
           guarantee: CLAIM : GUARANTEE TEXT

           Explanation ... *)

    * The comment starts with ``expect:`` and a verdict, ``verified``, ``refuted``,
      ``rejected`` or ``unknown``, optionally followed by ``:`` and a free-text summary. The
      summary runs up to the first ``guarantee:`` line or the end of the first paragraph, so the shared
      examples' headers (``(* expect: rejected: why ... *)``, over several lines) parse.
    * A line of the first paragraph that starts (after indentation) with ``guarantee:``
      states the exact guarantee expected of the claim named before `` : ``. It continues on
      the following lines up to the next ``guarantee:`` line or the end of the paragraph;
      whitespace runs count as one space. Only a ``verified`` header may list guarantees, and
      each claim at most once.

    Raises ``HeaderError`` with the reason when the header does not follow this format.
    """
    body = first_comment(source)
    paragraph_lines: List[str] = []
    lines = body.strip().splitlines()
    rest_start = len(lines)
    for i, line in enumerate(lines):
        if not line.strip():
            rest_start = i
            break
        paragraph_lines.append(line.strip())
    for line in lines[rest_start:]:
        if _GUARANTEE.match(line.strip()):
            raise HeaderError("guarantee: lines must be in the header's first paragraph "
                              "(before the first blank line)")
    match = _EXPECT.match(paragraph_lines[0] if paragraph_lines else "")
    if not match:
        raise HeaderError("the first comment must start with 'expect: VERDICT' "
                          f"(VERDICT one of {', '.join(EXPECTED_VERDICTS)})")
    verdict = match.group(1)
    if verdict not in EXPECTED_VERDICTS:
        raise HeaderError(f"unknown expected verdict {verdict!r} "
                          f"(one of {', '.join(EXPECTED_VERDICTS)})")
    summary_parts = [match.group(2) or ""]
    entries: List[List[str]] = []
    for line in paragraph_lines[1:]:
        g = _GUARANTEE.match(line)
        if g:
            entries.append([g.group(1)])
        elif entries:
            entries[-1].append(line)
        else:
            summary_parts.append(line)
    guarantees: Dict[str, str] = {}
    for entry in entries:
        name, sep, text = normalize(" ".join(entry)).partition(" : ")
        if not sep or not _CLAIM_NAME.match(name) or not text:
            raise HeaderError(f"malformed guarantee line {normalize(entry[0])!r}: "
                              "expected 'guarantee: CLAIM : TEXT'")
        if name in guarantees:
            raise HeaderError(f"two guarantee lines for the claim {name}")
        guarantees[name] = text
    if guarantees and verdict != EXPECT_VERIFIED:
        raise HeaderError(f"guarantee lines are only allowed with expect: verified, "
                          f"not with expect: {verdict}")
    return Expectation(verdict, normalize(" ".join(summary_parts)), guarantees)


def read_expectation(path: Path) -> Expectation:
    """``parse_expectation`` of the file at ``path`` (``HeaderError`` when unreadable)."""
    try:
        source = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise HeaderError(f"cannot read the file: {exc}") from exc
    return parse_expectation(source)


# ---- selecting programs -----------------------------------------------------------------------

def matches(relative: str, pattern: str) -> bool:
    """Whether the program at ``relative`` (a POSIX path under the suite root, such as
    ``classic/noisy_sum.pinf``) is selected by ``pattern``: a glob (``fnmatch``, where ``*``
    also matches ``/``) when it contains ``*``, ``?`` or ``[``, a substring otherwise."""
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(relative, pattern)
    return pattern in relative


def discover(root: Path = PROGRAMS, filters: Sequence[str] = ()) -> List[Path]:
    """The ``*.pinf`` and ``*.pwhile`` (while-programs, docs/aprhl.md) files under ``root``,
    sorted by relative path, restricted to those selected by at least one of ``filters`` (all of
    them when there are none)."""
    root = Path(root)
    paths = sorted(list(root.rglob("*.pinf")) + list(root.rglob("*.pwhile")),
                   key=lambda p: p.relative_to(root).as_posix())
    if filters:
        paths = [p for p in paths
                 if any(matches(p.relative_to(root).as_posix(), f) for f in filters)]
    return paths


# ---- results ----------------------------------------------------------------------------------

@dataclass
class ClaimResult:
    """One claim's outcome in the last verify run of its program."""

    name: str
    verdict: str
    guarantee: str
    failure: Optional[str]
    derivation_size: int
    by_kind: Dict[str, int]
    by_method: Dict[str, int]
    code: Optional[str] = None                       # why not verified (verifier/errors.py)
    confirmation: Optional[Dict[str, Any]] = None    # how a refuted claim was shown false

    def to_json(self) -> Dict[str, Any]:
        return {"name": self.name, "verdict": self.verdict, "guarantee": self.guarantee,
                "failure": self.failure, "code": self.code, "confirmation": self.confirmation,
                "derivation_size": self.derivation_size,
                "obligations": {"by_kind": self.by_kind, "by_method": self.by_method}}


@dataclass
class ProgramResult:
    """One program's outcome, compared with its expectation.

    ``actual`` is ``verified``, ``refuted``, ``unknown`` or ``error``; ``status`` is ``ok``,
    ``limitation`` (an expected-unknown program, not verified) or ``mismatch``, and
    ``problems`` says why in the last case. Times are in seconds; ``check_seconds`` is
    ``None`` when no certificate was checked.
    """

    program: str
    path: Path
    expected: Optional[Expectation]
    actual: str
    claims: List[ClaimResult] = field(default_factory=list)
    error: Optional[str] = None
    verify_runs: List[float] = field(default_factory=list)
    check_runs: List[float] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    audits: List[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.problems:
            return MISMATCH
        return LIMITATION if self.expected.verdict == EXPECT_UNKNOWN else OK

    @property
    def verify_seconds(self) -> Optional[float]:
        return statistics.median(self.verify_runs) if self.verify_runs else None

    @property
    def check_seconds(self) -> Optional[float]:
        return statistics.median(self.check_runs) if self.check_runs else None

    @property
    def derivation_size(self) -> int:
        return sum(c.derivation_size for c in self.claims)

    @property
    def by_kind(self) -> Dict[str, int]:
        return _sum_counts(c.by_kind for c in self.claims)

    @property
    def by_method(self) -> Dict[str, int]:
        return _sum_counts(c.by_method for c in self.claims)

    def to_json(self) -> Dict[str, Any]:
        by_kind = self.by_kind
        return {
            "program": self.program,
            "expected": self.expected.to_json() if self.expected else None,
            "actual": self.actual,
            "status": self.status,
            "problems": list(self.problems),
            "error": self.error,
            "claims": [c.to_json() for c in self.claims],
            "derivation_size": self.derivation_size,
            "obligations": {"total": sum(by_kind.values()), "by_kind": by_kind,
                            "by_method": self.by_method},
            "verify_seconds": _round(self.verify_seconds),
            "verify_runs": [_round(t) for t in self.verify_runs],
            "check_seconds": _round(self.check_seconds),
            "check_runs": [_round(t) for t in self.check_runs],
            "audits": list(self.audits),
        }


@dataclass
class SuiteResult:
    """The outcome of a suite run: its programs and how the run was made."""

    programs: List[ProgramResult]
    root: Path
    filters: Tuple[str, ...]
    repeat: int
    started: str
    wall_seconds: float
    environment: Dict[str, Any]

    @property
    def ok(self) -> bool:
        """No program's outcome differs from its expectation."""
        return all(p.status != MISMATCH for p in self.programs)

    def totals(self) -> Dict[str, Any]:
        by_kind = _sum_counts(p.by_kind for p in self.programs)
        checks = [p.check_seconds for p in self.programs if p.check_seconds is not None]
        actual = Counter(p.actual for p in self.programs)
        status = Counter(p.status for p in self.programs)
        return {
            "programs": len(self.programs),
            "verified": actual[ACTUAL_VERIFIED],
            "refuted": actual[ACTUAL_REFUTED],
            "unknown": actual[ACTUAL_UNKNOWN],
            "errors": actual[ACTUAL_ERROR],
            "mismatches": status[MISMATCH],
            "limitations": status[LIMITATION],
            "claims": sum(len(p.claims) for p in self.programs),
            "derivation_size": sum(p.derivation_size for p in self.programs),
            "obligations": sum(by_kind.values()),
            "obligations_by_kind": by_kind,
            "obligations_by_method": _sum_counts(p.by_method for p in self.programs),
            "verify_seconds": _round(sum(p.verify_seconds or 0.0 for p in self.programs)),
            "check_seconds": _round(sum(checks)) if checks else None,
            "wall_seconds": _round(self.wall_seconds),
        }

    def to_json(self) -> Dict[str, Any]:
        return {
            "generated_by": "privinfer bench",
            "started": self.started,
            "root": _display_path(self.root),
            "filters": list(self.filters),
            "repeat": self.repeat,
            "environment": self.environment,
            "totals": self.totals(),
            "programs": [p.to_json() for p in self.programs],
        }


def _sum_counts(counts: Iterable[Dict[str, int]]) -> Dict[str, int]:
    total: Counter = Counter()
    for c in counts:
        total.update(c)
    return dict(sorted(total.items()))


def _round(t: Optional[float]) -> Optional[float]:
    return None if t is None else round(t, 4)


# ---- running ----------------------------------------------------------------------------------

def file_verdict(report: Report) -> str:
    """``verified`` when every claim of ``report`` is verified, ``refuted`` when some claim is
    refuted, ``unknown`` otherwise."""
    verdicts = {c.verdict for c in report.claims}
    if REFUTED in verdicts:
        return ACTUAL_REFUTED
    return ACTUAL_VERIFIED if verdicts <= {VERIFIED} else ACTUAL_UNKNOWN


def compare(expected: Expectation, result: ProgramResult) -> List[str]:
    """Why ``result`` does not meet ``expected`` (empty when it does).

    An error never matches. ``verified`` needs the file verified and every listed guarantee
    equal (whitespace normalised) to that claim's ``ClaimReport.guarantee``; ``refuted`` needs
    it refuted; ``rejected`` needs it refuted or unknown; ``unknown`` needs it unknown.
    """
    if result.actual == ACTUAL_ERROR:
        return [f"the program could not be verified: {result.error}"]
    problems = []
    if expected.verdict == EXPECT_UNKNOWN:
        if result.actual == ACTUAL_VERIFIED:
            problems.append("expected unknown (a known limitation), but every claim is "
                            "verified: the limitation is lifted, update the header to "
                            "expect: verified")
        elif result.actual == ACTUAL_REFUTED:
            problems.append("expected unknown (claims believed true), but a claim is refuted: "
                            "either the header is wrong or a true claim was refuted")
        return problems
    if expected.verdict == EXPECT_REJECTED:
        if result.actual == ACTUAL_VERIFIED:
            problems.append("expected rejected (not verified), got verified")
    elif result.actual != expected.verdict:
        problems.append(f"expected {expected.verdict}, got {result.actual}")
    claims = {c.name: c for c in result.claims}
    for name, text in expected.guarantees.items():
        claim = claims.get(name)
        if claim is None:
            problems.append(f"the header lists a guarantee for {name}, which is not a claim "
                            "of the program")
        elif normalize(claim.guarantee) != text:
            problems.append(f"guarantee of {name}: expected {text!r}, got "
                            f"{normalize(claim.guarantee)!r}")
    return problems


def run_program(path: Path, root: Path = PROGRAMS, repeat: int = 1,
                certifier: Optional[Certifier] = None,
                auditor: Optional[Auditor] = None) -> ProgramResult:
    """Verify the program at ``path`` ``repeat`` times and compare it with its header.

    Parsing and simple typing happen once and are not timed; each ``verify_program`` call is
    timed. ``certifier``, when given, is called after every verify run with the program's path
    and that run's ``Report``; it must produce the certificate and return the seconds its
    independent check took (the runner records the median). Errors of the program or of the
    verifier are recorded in the result, never raised, unless ``PRIVINFER_DEBUG`` is set.
    ``auditor``, when given, computes the exact privacy audits of the program; an audit
    showing a verified guarantee below the exact loss is a soundness bug and a mismatch.
    """
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    path = Path(path)
    relative = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    result = ProgramResult(relative, path, None, ACTUAL_ERROR)
    try:
        result.expected = read_expectation(path)
    except HeaderError as exc:
        result.error = f"bad expectation header: {exc}"
        result.problems = [result.error]
        return result
    if path.suffix == ".pwhile":
        return _run_while_program(path, result, repeat, certifier is not None)
    try:
        program = parse_file(path)
        typed = typecheck_program(program)
        verdicts = set()
        report = None
        for _ in range(repeat):
            start = time.perf_counter()
            report = verify_program(program, typed)
            result.verify_runs.append(time.perf_counter() - start)
            verdicts.add(tuple((c.name, c.verdict) for c in report.claims))
            if certifier is not None:
                result.check_runs.append(float(certifier(path, report)))
    except PrivInferError as exc:
        result.error = exc.render()
    except Exception as exc:  # a crash of the verifier: recorded, the suite goes on
        if os.environ.get("PRIVINFER_DEBUG"):
            raise
        result.error = f"internal error: {type(exc).__name__}: {exc}"
    else:
        if not report.claims:
            result.error = "the program has no val claims"
        elif len(verdicts) > 1:
            result.error = "the verdicts differ between repeats: " + "; ".join(
                ", ".join(f"{n} {v}" for n, v in sorted(run)) for run in sorted(verdicts))
        else:
            result.actual = file_verdict(report)
        result.claims = [_claim_result(c) for c in report.claims]
    if result.error is not None:
        result.actual = ACTUAL_ERROR
    result.problems = compare(result.expected, result)
    if auditor is not None and result.actual != ACTUAL_ERROR:
        for cell, soundness_bug in auditor(path):
            result.audits.append(cell)
            if soundness_bug:
                result.problems.append(f"SOUNDNESS BUG: the exact audit shows {cell}")
    return result


def _run_while_program(path: Path, result: ProgramResult, repeat: int, certify: bool
                       ) -> ProgramResult:
    """``run_program`` for a while-program: apRHL verification (``verifier.aprhl``), and with a
    certifier its certificate checked by the kernel (``checker.aprhl``); no exact audit."""
    from verifier.aprhl.commands import verify_file
    try:
        verdicts = set()
        reports: list = []
        for _ in range(repeat):
            start = time.perf_counter()
            reports, ok = verify_file(str(path))
            result.verify_runs.append(time.perf_counter() - start)
            verdicts.add(tuple((r.name, r.verdict) for r in reports))
            if certify:
                from checker import aprhl as kernel_aprhl
                from checker.aprhl_certify import certificate
                from verifier.language.whilelang import parse_while_file
                cert = json.loads(json.dumps(certificate(parse_while_file(str(path)), reports,
                                                         str(path))))
                start = time.perf_counter()
                outcome = kernel_aprhl.check(cert)
                result.check_runs.append(time.perf_counter() - start)
                if not outcome.valid:
                    raise CertificateRejected(f"the certificate does not check: {outcome.reason}")
    except PrivInferError as exc:
        result.error = exc.render()
    except Exception as exc:
        if os.environ.get("PRIVINFER_DEBUG"):
            raise
        result.error = f"internal error: {type(exc).__name__}: {exc}"
    else:
        if not reports:
            result.error = "the program has no specified procedure"
        elif len(verdicts) > 1:
            result.error = "the verdicts differ between repeats"
        else:
            result.actual = ACTUAL_VERIFIED if all(r.verdict == VERIFIED for r in reports) \
                else ACTUAL_REFUTED if any(r.verdict == REFUTED for r in reports) \
                else ACTUAL_UNKNOWN
        from collections import Counter as _C
        result.claims = [ClaimResult(r.name, r.verdict, r.guarantee or "", r.failure,
                                     r.derivation.size() if r.derivation else 0,
                                     dict(_C(ob.kind.value for ob in r.obligations)),
                                     dict(_C(r.results[ob.id].method for ob in r.obligations
                                             if ob.id in r.results)), r.code,
                                     r.confirmation.to_json() if r.confirmation is not None
                                     else None)
                         for r in reports]
    if result.error is not None:
        result.actual = ACTUAL_ERROR
    result.problems = compare(result.expected, result)
    return result


def _claim_result(c: ClaimReport) -> ClaimResult:
    counts = c.counts()
    return ClaimResult(c.name, c.verdict, c.guarantee, c.failure,
                       c.derivation.size() if c.derivation is not None else 0,
                       dict(counts["by_kind"]), dict(counts["by_method"]), c.code,
                       c.confirmation.to_json() if c.confirmation is not None else None)


def run_suite(root: Path = PROGRAMS, filters: Sequence[str] = (), repeat: int = 1,
              certifier: Optional[Certifier] = None,
              progress: Optional[bool] = None,
              auditor: Optional[Auditor] = None) -> SuiteResult:
    """Run every program under ``root`` selected by ``filters`` (see ``discover``).

    ``progress`` shows a tqdm progress bar on standard error; by default, exactly when
    standard error is a terminal. Raises ``NoPrograms`` when nothing is selected.
    """
    root = Path(root).resolve()
    paths = discover(root, filters)
    if not paths:
        what = f"matches {', '.join(filters)} under" if filters else "found in"
        raise NoPrograms(f"no benchmark program {what} {_display_path(root)}")
    if progress is None:
        progress = sys.stderr.isatty()
    started = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    t0 = time.perf_counter()
    results = []
    with tqdm(total=len(paths), desc="bench", unit="program", file=sys.stderr,
              disable=not progress, dynamic_ncols=True) as bar:
        for path in paths:
            bar.set_postfix_str(path.relative_to(root).as_posix())
            results.append(run_program(path, root, repeat, certifier, auditor))
            bar.update(1)
    return SuiteResult(results, root, tuple(filters), repeat, started.isoformat(),
                       time.perf_counter() - t0, environment())


def environment() -> Dict[str, Any]:
    """What the timings depend on: Python, the platform, the CPUs, z3 and privinfer."""
    import z3
    try:
        from importlib.metadata import version
        privinfer_version = version("privinfer")
    except Exception:  # not installed: running from a source tree
        privinfer_version = None
    return {"python": platform.python_version(), "platform": platform.platform(),
            "cpus": os.cpu_count(), "z3": z3.get_version_string(),
            "privinfer": privinfer_version}


# ---- output -----------------------------------------------------------------------------------

def write_results(result: SuiteResult, out_dir: Path = RESULTS) -> Tuple[Path, Path]:
    """Write ``results.json`` and ``results.md`` into ``out_dir`` (created if needed) and
    return their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / "results.json", out_dir / "results.md"
    json_path.write_text(json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n",
                         encoding="utf-8")
    md_path.write_text(to_markdown(result, out_dir), encoding="utf-8")
    return json_path, md_path


def _counts_text(counts: Dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


def _seconds(t: Optional[float]) -> str:
    return "n/a" if t is None else f"{t:.2f}"


def _cell(text: str) -> str:
    """``text`` on one line, safe inside a Markdown table cell (also inside a code span, where
    GitHub Markdown still splits cells at an unescaped ``|``)."""
    return normalize(text).replace("|", "\\|")


def _code(text: str) -> str:
    return f"`{_cell(text)}`" if text else ""


def to_markdown(result: SuiteResult, out_dir: Path = RESULTS) -> str:
    """The results as a Markdown page whose program links are relative to ``out_dir``."""
    totals = result.totals()
    env = result.environment
    status_text = {OK: "ok", LIMITATION: "known limitation", MISMATCH: "**MISMATCH**"}
    command = "privinfer bench" + "".join(f" --filter {f}" for f in result.filters) + (
        f" --repeat {result.repeat}" if result.repeat != 1 else "")
    lines = [
        "# Benchmark results",
        "",
        f"Generated by `{command}` on {result.started} (Python {env.get('python')}, "
        f"z3 {env.get('z3')}, {env.get('platform')}, {env.get('cpus')} CPUs). "
        "Do not edit: run the command again. The suite and the expectation headers are "
        "described in [benchmarks/README.md](" + _link(BENCHMARKS / "README.md", out_dir) + ").",
        "",
        f"**Totals:** {totals['programs']} programs: {totals['verified']} verified, "
        f"{totals['refuted']} refuted, {totals['unknown']} unknown, {totals['errors']} errors; "
        f"**{totals['mismatches']} mismatches**; {totals['limitations']} known limitations. "
        f"{totals['claims']} claims, {totals['obligations']} obligations "
        f"({_counts_text(totals['obligations_by_kind'])}; discharged: "
        f"{_counts_text(totals['obligations_by_method'])}). Verify time "
        f"{totals['verify_seconds']:.2f} s (sum of the per-program medians over "
        f"{result.repeat} run{'s' if result.repeat != 1 else ''}); certificate check time "
        f"{_seconds(totals['check_seconds'])}; wall time {totals['wall_seconds']:.1f} s.",
        "",
        "Verify times are medians of in-process `verify_program` calls (parsing and simple "
        "typing excluded). Certificate check times are medians of the independent kernel's "
        "check (`privinfer check`) of the certificate written after each verify run (n/a with "
        "`--no-check`). The exact audit column gives the exact privacy loss computed by "
        "`privinfer audit` where it applies. "
        "*Actual* is *verified* when every claim is verified, *refuted* when a claim is shown "
        "false by a witness in the program's semantics (the Claims table says how), *unknown* "
        "otherwise; an expectation *rejected* means not verified (refuted or unknown); a "
        "*known limitation* is a program expected `unknown`: a true claim the verifier does "
        "not prove yet.",
        "",
        "| Program | Expected | Actual | Status | Claims verified | Derivation size "
        "| Obligations by kind | Discharged by | Verify (s) | Check (s) | Exact audit |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in result.programs:
        verified = sum(c.verdict == VERIFIED for c in p.claims)
        lines.append(
            f"| [{p.program}]({_link(p.path, out_dir)}) "
            f"| {p.expected.verdict if p.expected else 'n/a'} | {p.actual} "
            f"| {status_text[p.status]} | {verified}/{len(p.claims)} | {p.derivation_size} "
            f"| {_counts_text(p.by_kind)} | {_counts_text(p.by_method)} "
            f"| {_seconds(p.verify_seconds)} | {_seconds(p.check_seconds)} "
            f"| {_cell('; '.join(p.audits))} |")
    mismatches = [p for p in result.programs if p.status == MISMATCH]
    if mismatches:
        lines += ["", "## Mismatches", ""]
        for p in mismatches:
            lines.append(f"* `{p.program}`: " + "; ".join(normalize(x) for x in p.problems))
    lines += ["", "## Claims", "",
              "The guarantee of every verified claim, and the first reason of every other.", "",
              "| Program | Claim | Verdict | Derivation size | Guarantee, or why not verified |",
              "|---|---|---|---|---|"]
    for p in result.programs:
        for c in p.claims:
            if c.verdict == VERIFIED:
                text = _code(c.guarantee)
            else:
                text = _code((c.failure or "").splitlines()[0] if c.failure else "")
            verdict = c.verdict + (f" ({c.confirmation['method']})" if c.confirmation else "")
            lines.append(f"| {p.program} | {c.name} | {verdict} | {c.derivation_size} "
                         f"| {text} |")
    return "\n".join(lines) + "\n"


def _link(path: Path, out_dir: Path) -> str:
    return Path(os.path.relpath(Path(path).resolve(), Path(out_dir).resolve())).as_posix()


def _display_path(path: Path) -> str:
    """``path`` relative to the working directory when below it, absolute otherwise."""
    path = Path(path).resolve()
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def summary_text(result: SuiteResult, written: Sequence[Path] = ()) -> str:
    """The terminal summary: one line per mismatch, then the totals."""
    totals = result.totals()
    lines = []
    for p in result.programs:
        if p.status == MISMATCH:
            expected = p.expected.verdict if p.expected else "?"
            lines.append(f"MISMATCH {p.program} (expected {expected}, got {p.actual}): "
                         + "; ".join(x.splitlines()[0] for x in p.problems))
    runs = f"{result.repeat} run{'s' if result.repeat != 1 else ''}"
    lines += [
        f"{totals['programs']} programs: {totals['verified']} verified, "
        f"{totals['refuted']} refuted, {totals['unknown']} unknown, {totals['errors']} errors; "
        f"{totals['mismatches']} mismatches; {totals['limitations']} known limitations",
        f"{totals['claims']} claims, {totals['obligations']} obligations "
        f"({_counts_text(totals['obligations_by_kind'])}); discharged: "
        f"{_counts_text(totals['obligations_by_method'])}",
        f"verify time {totals['verify_seconds']:.2f} s (sum of medians over {runs}); "
        f"certificate check time {_seconds(totals['check_seconds'])}; "
        f"wall time {totals['wall_seconds']:.1f} s",
    ]
    if written:
        lines.append("wrote " + " and ".join(_display_path(p) for p in written))
    return "\n".join(lines)


__all__ = [
    "PROGRAMS", "RESULTS", "Certifier", "HeaderError", "NoPrograms", "Expectation", "ClaimResult",
    "ProgramResult", "SuiteResult", "normalize", "first_comment", "parse_expectation",
    "read_expectation", "matches", "discover", "file_verdict", "compare", "run_program",
    "run_suite", "environment", "write_results", "to_markdown", "summary_text",
]
