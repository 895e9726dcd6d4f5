"""Helpers shared by the verifier's tests (imported by name: pytest puts tests/ on the path)."""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Tuple

from checker import kernel
from checker.certify import certificate, dumps
from verifier.language.parser import parse_program
from verifier.language.resolve import resolve
from verifier.language.typecheck import typecheck_program
from verifier.verification import VERIFIED, ClaimReport, verify_program

ROOT = Path(__file__).resolve().parents[1]


def privinfer(*args) -> subprocess.CompletedProcess:
    """The command line run in a fresh interpreter from the repository's root, as a user
    would (``PRIVINFER_DEBUG`` unset, so internal errors are reported, not raised)."""
    env = {k: v for k, v in os.environ.items() if k != "PRIVINFER_DEBUG"}
    return subprocess.run([sys.executable, "-m", "verifier.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


def file_claims(path: Path) -> Tuple[Dict[str, object], dict, object]:
    """Verify a ``.pinf`` or ``.pwhile`` file: its claims (reports) by name, its certificate
    as JSON data, and the kernel's outcome on that certificate (the functional kernel or the
    apRHL one, by the file's kind)."""
    if path.suffix == ".pinf":
        claims, cert = claims_and_certificate(path.read_text())
        return claims, cert, kernel.check(cert)
    from checker import aprhl as aprhl_kernel
    from checker.aprhl_certify import certificate as aprhl_certificate
    from verifier.aprhl.commands import verify_file
    from verifier.language import whilelang as W
    reports, _ = verify_file(str(path))
    prog = W.parse_while_file(str(path))
    cert = json.loads(json.dumps(aprhl_certificate(prog, reports, str(path))))
    return {r.name: r for r in reports}, cert, aprhl_kernel.check(cert)


def assert_verified_with(path: Path, guarantees: Dict[str, str]) -> None:
    """Every claim of the file verified with exactly these guarantees (by claim name), its
    certificate accepted by the kernel."""
    claims, _, outcome = file_claims(path)
    assert outcome.valid, outcome.reason
    assert {n: c.verdict for n, c in claims.items()} == {n: "verified" for n in guarantees}
    assert {n: c.guarantee for n, c in claims.items()} == guarantees


def claims_and_certificate(text: str) -> Tuple[Dict[str, ClaimReport], dict]:
    """Verify the program ``text``: its claims by name, and its certificate as JSON data."""
    program = parse_program(text, "test.pinf")
    report = verify_program(program, typecheck_program(program))
    cert = json.loads(dumps(certificate(report, program.source, program.file)))
    return {c.name: c for c in report.claims}, cert


def kernel_refuses(monkeypatch, text: str, name: str, bug, reason: str) -> None:
    """With ``bug`` simulated in the builder (``bug(patch)`` monkeypatches it), the builder
    verifies ``name``; the kernel refuses the certificate, naming ``reason``; the builder,
    fixed, does not verify it."""
    with monkeypatch.context() as patch:
        bug(patch)
        claims, cert = claims_and_certificate(text)
    assert claims[name].verdict == VERIFIED, "the simulated bug no longer fools the builder"
    outcome = kernel.check(cert)
    assert not outcome.valid and reason in outcome.reason, outcome.reason
    assert claims_and_certificate(text)[0][name].verdict != VERIFIED


def checked(text: str):
    """The claims of ``text`` by name and its certificate, which the kernel accepts."""
    claims, cert = claims_and_certificate(text)
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason
    return claims, cert


def joint_shapes(text: str):
    """LetRec-Joint's additive shape of the first recursive function of ``text`` with a val,
    as the builder (``verifier.rules.joint``) and the kernel (``checker.joint``) each see it."""
    from checker.joint import shape as kernel_shape
    from checker.judgement import Proof
    from verifier.rules.joint import additive_shape
    program = resolve(parse_program(text, "shape.pinf"))
    decl = next(d for d in program.lets() if d.recursive)
    val = next(v for v in program.vals() if v.name == decl.name)
    proof = Proof(program, typecheck_program(program), val.name, lambda *a: None)
    return additive_shape(val, decl), kernel_shape(proof, decl)


def verdicts(report) -> Dict[str, str]:
    """A report's verdicts by claim name."""
    return {c.name: c.verdict for c in report.claims}


def while_attack_not_verified(path: Path, refused, probes) -> None:
    """A red-team while-program: refused as input (``refused``), verified in full (``probes``:
    true claims), or with no claim verified (every other attack)."""
    import pytest
    from verifier.aprhl.commands import verify_file
    from verifier.errors import PrivInferError
    if path.stem in refused:
        with pytest.raises(PrivInferError):
            verify_file(str(path))
        return
    verdicts = [r.verdict for r in verify_file(str(path))[0]]
    if path.stem in probes:
        assert verdicts and all(v == "verified" for v in verdicts), (path.name, verdicts)
    else:
        assert verdicts and all(v != "verified" for v in verdicts), (path.name, verdicts)


def functional_attack_not_verified(path: Path, attacked: Dict[str, set], refused=(), probes=(),
                                   open_claims=()) -> None:
    """A red-team .pinf program: refused as input (``refused``), verified in full (``probes``:
    true claims), never refuted (``open_claims``: true claims the rules leave unknown), or with
    its attacked claims (``attacked[stem]``, default every claim) not verified."""
    import pytest
    from verifier.errors import PrivInferError
    if path.stem in refused:
        with pytest.raises(PrivInferError):
            program = parse_program(path.read_text(), path.name)
            verify_program(program, typecheck_program(program))
        return
    program = parse_program(path.read_text(), path.name)
    claims = {c.name: c.verdict for c in verify_program(program, typecheck_program(program)).claims}
    if path.stem in open_claims:
        assert claims and "refuted" not in claims.values(), (path.name, claims)
        return
    if path.stem in probes:
        assert claims and all(v == VERIFIED for v in claims.values()), (path.name, claims)
        return
    targets = attacked.get(path.stem, set(claims))
    assert targets <= set(claims), (path.name, claims)
    for name in targets:
        assert claims[name] != VERIFIED, (path.name, name)


def load_module(path: Path, name: str):
    """The Python file ``path`` (a round's ``forge.py``, which is not a package module) loaded
    as the module ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.lru_cache(maxsize=None)
def while_reports(text: str, refute: bool = True):
    """The reports of every procedure of a while-program (its text) and its certificate (as
    JSON text: a test tampering with it loads a fresh copy), verified once per test process;
    ``refute=False``: no witness searched (for twins only required not to be verified)."""
    from tempfile import TemporaryDirectory
    from checker.aprhl_certify import certificate as while_certificate
    from verifier.aprhl.verify import verify_proc
    from verifier.language import whilelang as W
    with TemporaryDirectory() as d:
        path = Path(d) / "p.pwhile"
        path.write_text(text)
        prog = W.parse_while_file(str(path))
        types = W.check_program(prog)
        reports = [verify_proc(p, types[p.name], refute=refute) for p in prog.procs]
        return reports, json.dumps(while_certificate(prog, reports, str(path)))
