"""One program of a fuzzing campaign: generate, calibrate, verify, judge, transform.

``check_case(seed, config) -> Case`` checks the program generated from ``seed``:

1. **generate** (``generate.generate``), print and parse it back, type-check it (a program that
   does not type is counted as *discarded*);
2. **calibrate** every claim: the oracle computes the smallest true constant of the claim
   (``Oracle.needed``) and ``generate.calibrate`` sets it tight, loose or undercharged;
3. **verify** (``verify_program``): every claim is verified, rejected or unknown; an exception
   escaping the verifier is a ``crash`` failure;
4. **judge** every verified claim with the oracle on every pair of inputs it covers: a
   violation, a run-time error or a run that does not terminate is a failure (``oracle``);
5. **metamorphic**: the program renamed, reordered and padded with an unused definition
   (``metamorphic.variant``) is verified again: a claim whose verdict changes is a
   ``metamorphic`` failure;
6. every failure gets the **kernel's** opinion: the program's certificate
   (``checker.certify``) checked by ``checker.kernel``; a certificate the kernel accepts for a
   failing claim makes it a kernel failure too.

The loop over programs is ``campaign.py``; shrinking ``shrink.py``; the report ``report.py``.
"""
from __future__ import annotations

import json
import random
import threading
import time
from typing import Any, Callable, Dict, List, Optional

from checker import kernel
from checker.certify import certificate, dumps
from obligations.records import field, record
from verifier.errors import PrivInferError
from verifier.fuzz import coverage, metamorphic
from verifier.fuzz.generate import Draft, calibrate, generate
from verifier.fuzz.oracle import CRASH, Judgement, Limits, Oracle, Witness
from verifier.language import ast
from verifier.language.parser import parse_program
from verifier.language.pretty import pretty_program
from verifier.language.typecheck import TypedProgram, typecheck_program
from verifier.verification import verify_program

METAMORPHIC = "metamorphic"
#: Failure kinds, in the order reports list them.
KINDS = ("soundness", "runtime", "nontermination", "crash", METAMORPHIC)


@record
class Config:
    """What a campaign runs: ``count`` programs or for ``seconds`` (whichever is given)."""

    seed: int = 0
    count: Optional[int] = 100
    seconds: Optional[float] = None
    limits: Limits = field(default_factory=Limits)
    metamorphic: bool = True
    kernel: bool = True
    shrink: bool = True
    max_shrinks: int = 20          # failures shrunk per campaign (the others are counted)
    shrink_checks: int = 150       # predicate evaluations per shrink
    shrink_seconds: float = 30.0   # time per shrink
    only: Optional[int] = None     # check only this program of the campaign
    workers: int = 1               # processes checking programs (with a count)


def program_seed(seed: int, index: int) -> int:
    """The generator seed of program ``index`` of campaign ``seed``."""
    return (seed * 1_000_003 + index) & 0xFFFFFFFF


@record(frozen=False)
class Failure:
    """One failing claim: kind, the program (and the variant, for metamorphic failures), the
    verifier's verdict and output, the oracle's witness, and the kernel's opinion."""

    kind: str
    claim: str
    program: str
    seed: int
    verdict: str
    witness: Optional[Witness] = None
    message: str = ""
    variant: str = ""
    kernel: Optional[str] = None          # "accepted" / "rejected: ..." / None (not checked)
    shrunk_kernel: Optional[str] = None   # the same for the minimised program
    verifier_output: str = ""
    shrunk: Optional[str] = None          # the minimised program
    shrunk_output: str = ""
    features: List[str] = field(default_factory=list)

    @property
    def kernel_accepted(self) -> bool:
        return self.kernel == "accepted"

    def to_json(self) -> Dict[str, Any]:
        return {"kind": self.kind, "claim": self.claim, "seed": self.seed, "verdict": self.verdict,
                "message": self.message, "kernel": self.kernel, "shrunk_kernel": self.shrunk_kernel,
                "program": self.program,
                "shrunk": self.shrunk, "variant": self.variant or None,
                "witness": None if self.witness is None else self.witness.to_json(),
                "features": self.features}


@record(frozen=False)
class Case:
    """What happened to one generated program."""

    seed: int
    index: int = 0                              # its number in the campaign
    status: str = "checked"                     # "checked" | "discarded"
    reason: str = ""
    text: str = ""
    verdicts: Dict[str, str] = field(default_factory=dict)
    judgements: Dict[str, Judgement] = field(default_factory=dict)
    failures: List[Failure] = field(default_factory=list)
    features: set = field(default_factory=set)
    metamorphic_checked: bool = False
    seconds: float = 0.0


#: The stack of the thread a program is checked on: a run that recurses deeply through the
#: interpreter's C code (a tuple built in each call, say) must not overflow the C stack before
#: the step budget stops it (the command line uses the same size).
STACK_BYTES = 512 * 1024 * 1024


def on_a_large_stack(fn: Callable[[], Any]) -> Any:
    """``fn()`` run on a thread with a ``STACK_BYTES`` stack (exceptions are re-raised here)."""
    out: Dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 — re-raised in the caller's thread
            out["error"] = exc

    previous = threading.stack_size(STACK_BYTES)
    try:
        thread = threading.Thread(target=target, name="privinfer-fuzz")
        thread.start()
    finally:
        threading.stack_size(previous)
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def check_case(seed: int, config: Config = Config()) -> Case:
    """Generate, calibrate, verify and judge program ``seed`` (see the module docstring), on a
    thread with a large stack."""
    return on_a_large_stack(lambda: _check_case(seed, config))


def _check_case(seed: int, config: Config) -> Case:
    start = time.perf_counter()
    case = Case(seed)
    rng = random.Random(seed ^ 0x5EED)
    draft = generate(seed)
    prepared = prepare(draft, config.limits, rng)
    if isinstance(prepared, str):
        case.status, case.reason = "discarded", prepared
        case.seconds = time.perf_counter() - start
        return case
    program, typed, oracle = prepared
    case.text = program.source
    case.features = coverage.features(program, typed) | {f"generator: {t}" for t in draft.tags}
    outcome = verify(program, typed)
    if isinstance(outcome, str):
        case.failures.append(Failure(CRASH, "", case.text, seed, "crash", message=outcome))
    else:
        case.verdicts = {c.name: c.verdict for c in outcome.claims}
        for claim in outcome.claims:
            if claim.verdict != "verified":
                continue
            val = program.find_val(claim.name)
            judgement = oracle.judge(val)
            case.judgements[claim.name] = judgement
            if judgement.failed:
                case.failures.append(Failure(judgement.witness.kind, claim.name, case.text, seed, claim.verdict,
                                             judgement.witness, judgement.witness.message))
        if config.metamorphic:
            case.metamorphic_checked = True
            case.failures += metamorphic_failures(program, case, seed)
        if config.kernel:
            for failure in case.failures:
                if failure.kind != CRASH and failure.claim:
                    failure.kernel = kernel_opinion(failure.program, failure.claim)
    for failure in case.failures:
        failure.features = sorted(case.features)
    case.seconds = time.perf_counter() - start
    return case


def prepare(draft: Draft, limits: Limits, rng: random.Random):
    """``(program, typed, oracle)`` with every claim calibrated, or the reason it is discarded."""
    first = parse_and_type(pretty_program(draft.program()))
    if isinstance(first, str):
        return first
    program, typed = first
    oracle = Oracle(program, typed, limits)
    for plan in draft.claims:
        val = program.find_val(plan.name)
        needed = oracle.needed(val) if plan.slot != "none" else None
        if plan.known is not None and (needed is None or needed < float(plan.known)):
            needed = float(plan.known)
        if plan.slot != "none":
            calibrate(plan, needed, rng)
    final = parse_and_type(pretty_program(draft.program()))
    if isinstance(final, str):
        return "after calibration: " + final
    program, typed = final
    return program, typed, oracle.for_program(program, typed)


def parse_and_type(text: str, name: str = "fuzz.pinf"):
    """``(program, typed)`` or the first error's message."""
    try:
        program = parse_program(text, name)
        return program, typecheck_program(program)
    except PrivInferError as exc:
        return f"{exc.first.code}: {exc.first.message}"


def verify(program: ast.Program, typed: TypedProgram):
    """The verifier's report, or the description of the exception that escaped it."""
    try:
        return verify_program(program, typed)
    except PrivInferError as exc:
        return f"the verifier raised an input error on a well-typed program: {exc.first.code} {exc.first.message}"
    except RecursionError:
        return "the verifier exceeded the recursion limit"
    except Exception as exc:  # noqa: BLE001 — an internal error of the verifier is a finding
        return f"{type(exc).__name__}: {exc}"


def verdicts_of(text: str) -> Optional[Dict[str, str]]:
    """The verdict of each claim of a program text (``None``: it does not type or verify)."""
    parsed = parse_and_type(text)
    if isinstance(parsed, str):
        return None
    report = verify(*parsed)
    return None if isinstance(report, str) else {c.name: c.verdict for c in report.claims}


def metamorphic_failures(program: ast.Program, case: Case, seed: int) -> List[Failure]:
    """Verify the program's variant; every claim whose verdict changes is a failure."""
    variant = metamorphic.variant(program, random.Random(seed ^ 0xA11A5))
    text = pretty_program(variant.program)
    after = verdicts_of(text)
    if after is None:
        return [Failure(METAMORPHIC, "", case.text, seed, "", message="the variant does not type or verify",
                        variant=text)]
    out = []
    for name, verdict in case.verdicts.items():
        renamed = variant.names.get(name, name)
        if after.get(renamed) != verdict:
            out.append(Failure(METAMORPHIC, name, case.text, seed, verdict, variant=text,
                               message=f"{name} is {verdict}, but {after.get(renamed, 'missing')} in the variant "
                                       f"({', '.join(variant.steps)})"))
    return out


def kernel_opinion(text: str, claim: str) -> str:
    """``accepted`` when the kernel accepts the program's certificate with ``claim`` verified,
    else ``rejected: <reason>`` (or why there is no certificate). A certificate covers every
    claim of its source, so the reason may be another claim's."""
    parsed = parse_and_type(text)
    if isinstance(parsed, str):
        return f"no certificate: {parsed}"
    report = verify(*parsed)
    if isinstance(report, str):
        return f"no certificate: {report}"
    cert = json.loads(dumps(certificate(report, parsed[0].source, parsed[0].file)))
    outcome = kernel.check(cert)
    if not outcome.valid:
        return f"rejected: {outcome.reason}"
    verdict = next((c["verdict"] for c in outcome.claims if c.get("name") == claim), None)
    return "accepted" if verdict == "verified" else f"rejected: the claim is {verdict} in the certificate"


__all__ = ["Config", "Case", "Failure", "check_case", "program_seed", "KINDS", "METAMORPHIC",
           "CRASH", "parse_and_type", "verify", "verdicts_of", "kernel_opinion"]
