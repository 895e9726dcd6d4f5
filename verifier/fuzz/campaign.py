"""One fuzzing campaign: generate, calibrate, verify, judge, transform, shrink, record.

``fuzz(config) -> CampaignReport`` runs programs ``0, 1, 2, ...`` of the campaign's seed (program
``i`` is generated from ``program_seed(seed, i)``, so a campaign is deterministic and any program
can be replayed alone) until ``config.count`` programs or ``config.seconds`` have passed.
``check_case(seed, config)`` is one program:

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

Failures are shrunk (``shrink``) and written out by ``report``.
"""
from __future__ import annotations

import json
import random
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Optional

from obligations.records import field, record, replace
from verifier.errors import PrivInferError
from verifier.fuzz import coverage
from verifier.fuzz.generate import Draft, calibrate, generate
from verifier.fuzz.oracle import CRASH, Judgement, Limits, Oracle, Witness
from verifier.language import ast
from verifier.language.parser import parse_program
from verifier.language.pretty import pretty_program
from verifier.language.typecheck import TypedProgram, typecheck_program

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
    from verifier.verification import verify_program
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
    from verifier.fuzz import metamorphic
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
    from checker import kernel
    from checker.certify import certificate, dumps
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


# ---- the campaign ----------------------------------------------------------------------------


def fuzz(config: Config, progress: Optional[Callable[[Case], None]] = None):
    """Run a campaign (see the module docstring); returns a ``report.CampaignReport``. With
    ``config.workers`` above 1 (and a ``count``), the programs are checked in that many
    processes; they are reported, and their failures shrunk, in program order."""
    from verifier.fuzz.report import CampaignReport
    from verifier.fuzz.shrink import shrink_failure
    report = CampaignReport(config)
    start = time.perf_counter()
    for case in cases(config, start):
        for failure in case.failures:
            if config.shrink and report.shrink_budget_left() and report.is_new(failure):
                on_a_large_stack(lambda f=failure: shrink_failure(f, config))
        report.add(case)
        if progress is not None:
            progress(case)
    report.seconds = time.perf_counter() - start
    return report


def cases(config: Config, start: float) -> Iterator[Case]:
    """The checked programs of the campaign, in order (see ``fuzz``)."""
    if config.only is not None:
        yield _indexed(config.seed, config.only, config)
        return
    if config.workers > 1 and config.count is not None:
        yield from _in_processes(config)
        return
    index = 0
    while (config.count is None or index < config.count) and \
            (config.seconds is None or time.perf_counter() - start < config.seconds):
        yield _indexed(config.seed, index, config)
        index += 1


def _indexed(seed: int, index: int, config: Config) -> Case:
    case = check_case(program_seed(seed, index), config)
    case.index = index
    return case


def _in_processes(config: Config) -> Iterator[Case]:
    """Programs ``0 .. count-1`` checked by ``config.workers`` processes. A worker that dies
    (the interpreter crashing on a program) breaks the pool: the programs in flight are then
    run one at a time, each in a fresh process, so that the one that kills it is reported as a
    ``crash`` and the campaign goes on."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    context = multiprocessing.get_context("fork")
    worker_config = replace(config, workers=1, shrink=False)
    index, count, in_flight = 0, config.count, 4 * config.workers
    while index < count:
        lost = None
        with ProcessPoolExecutor(config.workers, mp_context=context) as pool:
            futures = [pool.submit(_in_worker, config.seed, i, worker_config) for i in range(index, count)]
            for i, future in enumerate(futures, index):
                try:
                    yield future.result()
                except BrokenProcessPool:
                    lost = i
                    break
        if lost is None:
            return
        for i in range(lost, min(lost + in_flight, count)):
            with ProcessPoolExecutor(1, mp_context=context) as alone:
                try:
                    yield alone.submit(_in_worker, config.seed, i, worker_config).result()
                except BrokenProcessPool:
                    yield _died(config.seed, i)
        index = min(lost + in_flight, count)


def _in_worker(seed: int, index: int, config: Config) -> Case:
    """``_indexed`` in a worker process (looked up there, so that it can be replaced)."""
    return _indexed(seed, index, config)


def _died(seed: int, index: int) -> Case:
    """The case of a program whose check killed its process."""
    from verifier.fuzz.generate import generate
    gen_seed = program_seed(seed, index)
    text = pretty_program(generate(gen_seed).program())
    case = Case(gen_seed, index=index, text=text)
    case.failures.append(Failure(CRASH, "", text, gen_seed, "crash",
                                 message="the process checking this program died (the interpreter crashed)"))
    return case


__all__ = ["Config", "Case", "Failure", "check_case", "fuzz", "program_seed", "KINDS", "METAMORPHIC",
           "parse_and_type", "verify", "verdicts_of", "kernel_opinion"]
