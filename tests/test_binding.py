"""The binding discipline (issue [binding], docs/verifier.md "The binding discipline").

Every name is resolved to its own binder before the rules run; a value is equal in both runs
only by proof; a monadic parameter's relation is its index; every recursive call terminates.
Each must-fail program below (written for these tests, in shapes of their own) has a must-pass
twin, so that a fix cannot simply reject everything; and each class of builder bug the issue
names is simulated — the fixed check monkeypatched back to the old behaviour — to show that the
certificate kernel refuses what the buggy builder verifies, on its own.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker import kernel
from checker.certify import certificate, dumps
from verifier.language.parser import parse_program
from verifier.language.resolve import resolve, source_name
from verifier.language.typecheck import typecheck_program
from verifier.verification import VERIFIED, verify_program
from verify_helpers import claims_and_certificate

ROOT = Path(__file__).resolve().parent.parent
UNSOUND = ROOT / "benchmarks" / "programs" / "unsound"

ADJ = "{l :: bool list | adj (l<1>, l<2>)}"
EPS = "{eps :: real+ | =}"

#: (name, program, claim, expected verdict, words the failure must contain)
CASES = [
    # ---- 1. equal in both runs by proof, not by looking -------------------------------------
    ("stored return, selected by a public if",
     f"""val main :: {ADJ} -> M[DP(1.0)] {{r :: bool | =}}
let main db = let m = return (count db > 1) in if true then m else m""",
     "main", "not verified", "equal in both runs"),
    ("stored noisy count, run once",
     f"""val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let main db eps = let m = lapMech (eps, count db) in mlet x = m in return x""",
     "main", VERIFIED, ""),
    ("stored noisy count, run twice on one budget",
     f"""val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let main db eps = let m = lapMech (eps, count db) in mlet x = m in mlet y = m in return (x + y)""",
     "main", "not verified", "privacy cost"),
    ("a closure returning the data",
     f"""val main :: {ADJ} -> M[DP(1.0)] {{r :: bool | =}}
let main db = let leak = fun u -> return (length db > 0 && count db = 0) in leak ()""",
     "main", "not verified", "equal in both runs"),
    ("a closure adding noise",
     f"""val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let main db eps = let noisy = fun u -> lapMech (eps, count db) in noisy ()""",
     "main", VERIFIED, ""),
    ("a partial application capturing the data",
     f"""let pick x u = return x
val main :: {ADJ} -> M[DP(1.0)] {{r :: bool | =}}
let main db = let f = pick (count db > 0) in f ()""",
     "main", "not verified", "same function in both runs"),
    ("two helpers without val return the data",
     f"""let inner d = return (count d > 0)
let outer d = inner d
val main :: {ADJ} -> M[DP(1.0)] {{r :: bool | =}}
let main db = outer db""",
     "main", "not verified", "equal in both runs"),
    ("two helpers without val add the noise",
     f"""let inner d e = lapMech (e, count d)
let outer d e = inner d e
val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let main db eps = outer db eps""",
     "main", VERIFIED, ""),
    ("a computation stored in a tuple",
     f"""val main :: {ADJ} -> M[DP(1.0)] {{r :: bool | =}}
let main db = let p = (return (count db > 0), 1) in let (m, k) = p in m""",
     "main", "not verified", "equal in both runs"),
    # ---- 2. names are resolved, not spelled ---------------------------------------------------
    ("the program's own expMech",
     f"""let expMech (e, s, x) = return (count x > 0)
val main :: {ADJ} -> M[DP(1.0)] {{r :: bool | =}}
let main db = expMech (1.0, fun (x, r) -> 0.0, db)""",
     "main", "not verified", "equal in both runs"),
    ("a local lapMech without noise",
     f"""val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let main db eps = let lapMech = fun (e, x) -> return x in lapMech (eps, count db)""",
     "main", "not verified", "equal in both runs"),
    ("the built-in lapMech after a later redefinition",
     f"""val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let main db eps = lapMech (eps, count db)
let lapMech (e, x) = return x""",
     "main", VERIFIED, ""),
    ("a val'd function called through a local alias of another name",
     f"""val peek :: {{l :: bool list | =}} -> M[SD] {{r :: bool | =}}
let peek l = return (count l > 0)
val main :: {ADJ} -> M[DP(0.5)] {{r :: bool | =}}
let main db = let main = peek in main db""",
     "main", "not verified", "argument 1 of peek"),
    ("an alias of a val'd function on public data",
     f"""val noisy :: {{l :: bool list | adj (l<1>, l<2>)}} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let noisy l eps = lapMech (eps, count l)
val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let main db eps = let f = noisy in f db eps""",
     "main", VERIFIED, ""),
    ("the claim's count is the built-in one, the program's sum its own",
     f"""let sum l = count l
val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let main db eps = lapMech (eps, sum db)""",
     "main", VERIFIED, ""),
    ("the program's count, 5 times the built-in",
     f"""let five l = 5.0 * count l
let count l = five l
val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let main db eps = lapMech (eps, count db)""",
     "main", "not verified", "privacy cost"),
    ("the program's count, 5 times the built-in, charged 5 eps",
     f"""let five l = 5.0 * count l
let count l = five l
val main :: {ADJ} -> {EPS} -> M[DP(5.0 * eps)] {{r :: real | =}}
let main db eps = lapMech (eps, count db)""",
     "main", VERIFIED, ""),
    ("a program function named like a symbol of the logic",
     f"""val countOf :: {{l :: bool list | =}} -> {{r :: real | r<1> = r<2>}}
let countOf l = 0.0
val main :: {ADJ} -> M[DP(1.0)] {{r :: bool | =}}
let main db = return (countOf db = 0.0)""",
     "main", "not verified", "countOf"),
    # ---- 3. a monadic parameter's relation is its index --------------------------------------
    ("a computation within DP(eps), run once",
     f"""val run :: {EPS} -> M[DP(eps)] {{x :: bool | =}} -> M[DP(eps)] {{x :: bool | =}}
let run eps m = mlet a = m in return (not a)""",
     "run", VERIFIED, ""),
    ("a computation within DP(eps), run twice on 1.5 eps",
     f"""val run :: {EPS} -> M[DP(eps)] {{x :: bool | =}} -> M[DP(1.5 * eps)] {{x :: bool | =}}
let run eps m = mlet a = m in mlet b = m in return (a && b)""",
     "run", "not verified", "privacy cost"),
    ("a computation within DP(1.0) passed as an equal one",
     """val same :: M[SD] {x :: bool | =} -> M[SD] {x :: bool | =}
let same m = m
val pass :: M[DP(1.0)] {x :: bool | =} -> M[DP(1.0)] {x :: bool | =}
let pass m = same m""",
     "pass", "not verified", "same distribution"),
    ("a computation within DP(eps), passed on where DP(eps) is expected",
     f"""val use :: {EPS} -> M[DP(eps)] {{x :: bool | =}} -> M[DP(2.0 * eps)] {{x :: bool | =}}
let use eps m = mlet a = m in mlet b = m in return (a || b)
val pass :: {EPS} -> M[DP(eps)] {{x :: bool | =}} -> M[DP(2.0 * eps)] {{x :: bool | =}}
let pass eps m = use eps m""",
     "pass", VERIFIED, ""),
    ("a computation within DP(2 eps), passed on where DP(eps) is expected",
     f"""val use :: {EPS} -> M[DP(eps)] {{x :: bool | =}} -> M[DP(2.0 * eps)] {{x :: bool | =}}
let use eps m = mlet a = m in mlet b = m in return (a || b)
val pass :: {EPS} -> M[DP(2.0 * eps)] {{x :: bool | =}} -> M[DP(4.0 * eps)] {{x :: bool | =}}
let pass eps m = use eps m""",
     "pass", "not verified", "within the bound its val expects"),
    # ---- 4. every recursive call terminates ---------------------------------------------------
    ("a recursive call hidden in a tuple",
     f"""val f :: {ADJ} -> {{r :: real | r<1> = r<2>}}
let rec f l = match l with
  | [] -> 0.0
  | x :: xs -> if count l > 2 then fst (0.0, f l) else 0.0""",
     "f", "not verified", "shorter list"),
    ("a recursive call as an ignored argument",
     f"""let second a b = b
val f :: {ADJ} -> {{r :: real | r<1> = r<2>}}
let rec f l = match l with
  | [] -> 0.0
  | x :: xs -> second (f l) 0.0""",
     "f", "not verified", "shorter list"),
    ("a recursive call through an alias",
     f"""val f :: {ADJ} -> {{r :: real | r<1> = r<2>}}
let rec f l = match l with
  | [] -> 0.0
  | x :: xs -> let g = f in g xs""",
     "f", "not verified", "direct application"),
    ("a recursive call through an applied lambda",
     f"""val f :: {ADJ} -> {{r :: real | r<1> = r<2>}}
let rec f l = match l with
  | [] -> 0.0
  | x :: xs -> let g = fun y -> f y in g l""",
     "f", "not verified", "shorter list"),
    ("a structural recursive call in a used let",
     f"""val f :: {{l :: bool list | =}} -> {{r :: real | r<1> = r<2>}}
let rec f l = match l with
  | [] -> 0.0
  | x :: xs -> let r = f xs in r + 1.0""",
     "f", VERIFIED, ""),
    ("a structural recursive call in an unused let",
     f"""val f :: {{l :: bool list | =}} -> {{r :: real | r<1> = r<2>}}
let rec f l = match l with
  | [] -> 0.0
  | x :: xs -> let r = f xs in 1.0""",
     "f", VERIFIED, ""),
]


@pytest.mark.parametrize("name, text, claim, verdict, words", CASES,
                         ids=[c[0] for c in CASES])
def test_binding_discipline(name, text, claim, verdict, words):
    claims, cert = claims_and_certificate(text)
    report = claims[claim]
    if verdict == "not verified":
        assert report.verdict != VERIFIED
    else:
        assert report.verdict == verdict, report.failure
    if verdict != VERIFIED:
        assert words in report.failure, report.failure
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason


def test_a_bound_distribution_is_used_naturally():
    """The issue's natural program: a posterior bound by ``let`` before it is used (here in
    the score of the exponential mechanism of the paper's §6.3)."""
    text = """
let zeta = sqrt (2.0 * (1.0 - pi / 4.0))

val learnBias :: {l :: bool list | =} -> M[SD] {x :: [0,1] | =} -> M[SD] {x :: [0,1] | =}
let rec learnBias db prior = match db with
  | [] -> prior
  | d :: dbs -> observe (fun r -> mlet z = ran (bernoulli r) in return (d = z))
                        (learnBias dbs prior)

let score (input, out) =
  let (db, a, b) = input in
  let post = learnBias db (ran (beta (a, b))) in
  0.0 - tv (infer post, out)

val main :: {l :: bool list | adj (l<1>, l<2>)}
         -> {a :: real+ | a<1> = a<2> /\\ a<1> >= 1.0} -> {b :: real+ | b<1> = b<2> /\\ b<1> >= 1.0}
         -> {eps :: real+ | =} -> M[DP(zeta * eps)] {d :: D[[0,1]] | =}
let main db a b eps =
  expMech (eps, score, (db, a, b), posteriors (beta (a, b), length db))
"""
    claims, cert = claims_and_certificate(text)
    assert claims["main"].verdict == VERIFIED, claims["main"].failure
    assert kernel.check(cert).valid


def test_a_claim_is_read_where_its_val_stands():
    """A name of the claim that only a later definition binds is an input error (the claim
    does not change meaning with what follows it)."""
    from verifier.errors import PrivInferError
    text = f"""val main :: {ADJ} -> M[DP(rho)] {{r :: bool | =}}
let rho = 1.0
let main db = return true"""
    program = parse_program(text, "t.pinf")
    with pytest.raises(PrivInferError) as err:
        verify_program(program, typecheck_program(program))
    assert err.value.first.code == "T001" and "defined after this val" in err.value.first.hint


def test_resolution_renames_only_what_shadows():
    program = parse_program("""let lapMech (e, x) = return x
let f x = let x = x + 1 in x
let g y = lapMech (1.0, y)
""", "t.pinf")
    core = resolve(program)
    f, g = core.lets()[1], core.lets()[2]
    assert core.lets()[0].name == "lapMech#1"  # a built-in's name is never a binder's
    param, inner = f.params[0].name, f.body.pattern.name
    assert param != inner and source_name(param) == source_name(inner) == "x"
    assert f.body.value.left.name == param and f.body.body.name == inner
    assert g.body.fn.name == "lapMech#1"       # the uses follow their binder
    assert g.params[0].name == "y"             # a name used once stays as written
    assert source_name("lapMech#1") == "lapMech"
    assert resolve(core) is core


# ---- the kernel catches the builder's bugs on its own ------------------------------------------

def _certify(path: Path) -> tuple:
    program = parse_program(path.read_text(), path.name)
    report = verify_program(program, typecheck_program(program))
    cert = json.loads(dumps(certificate(report, program.source, program.file)))
    return {c.name: c.verdict for c in report.claims}, cert


def _old_equality(monkeypatch):
    """Equal in both runs when the values *look* equal (the bug of let_bound_return)."""
    from verifier.rules import equality, monadic_rules
    real = equality.equality_goals

    def looks_equal(left, right, _seen=None):
        return [] if left == right else real(left, right, _seen)
    monkeypatch.setattr(equality, "equality_goals", looks_equal)
    monkeypatch.setattr(monadic_rules, "equality_goals", looks_equal)


def _no_output_check(monkeypatch):
    """The path's output is not proved equal (the bug of helper_returns_data_tail)."""
    from verifier.rules import builder
    monkeypatch.setattr(builder, "equality_goals", lambda left, right: [])


def _alias_by_spelling(monkeypatch):
    """A call is typed by the val of the head's spelling (the bug of self_justifying_alias)."""
    from verifier.rules import core_rules, monadic_rules, registry
    real = core_rules.apply_val

    def by_spelling(b, ctx, e, name, args):
        head = monadic_rules.flatten_app(e)[0]
        return real(b, ctx, e, source_name(head.name), args)
    monkeypatch.setitem(registry._JUDGEMENTS, registry.APP_VAL, by_spelling)


def _results_only_termination(monkeypatch):
    """Only recursive calls that reach the result are checked (hidden_divergence_let)."""
    from verifier.rules import core_rules, safety
    monkeypatch.setattr(safety.Safety, "_terminates", lambda self, ctx, calls: None)
    monkeypatch.setattr(core_rules, "every_recursive_call_terminates", lambda *a: None)


def _likelihood_by_spelling(monkeypatch):
    """The observe-fold's likelihood family is read by its spelling (shadowed_normal_fold)."""
    from verifier.language import ast as A
    from verifier.rules import observe_fold
    real = observe_fold.likelihood_parts

    def by_spelling(n):
        if isinstance(n, A.App) and isinstance(n.fn, A.Var):
            return A.App(A.Var(source_name(n.fn.name), n.fn.span), n.arg, n.span)
        return None

    def spelled(lik):
        return real(A.transform(lik, by_spelling))
    monkeypatch.setattr(observe_fold, "likelihood_parts", spelled)


def _typed_parameter_equal(monkeypatch):
    """A monadic parameter within DP(1.0) is taken to be the same computation in both runs."""
    from verifier.rules import equality, monadic_rules
    real = equality.equality_goals

    def typed_equal(left, right, _seen=None):
        from verifier.translation.symbolic import Monadic
        if isinstance(left, Monadic) and left is right and left.expr is None:
            return []
        return real(left, right, _seen)
    monkeypatch.setattr(monadic_rules, "equality_goals", typed_equal)


BUGS = [
    ("let_bound_return.pinf", "main", _old_equality, "inputs are equal in both runs"),
    ("helper_returns_data_tail.pinf", "main", _no_output_check, "output is equal in both runs"),
    ("shadow_lapmech_identity.pinf", "noisyCount", _no_output_check,
     "output is equal in both runs"),
    ("self_justifying_alias.pinf", "main", _alias_by_spelling, "refinement"),
    ("hidden_divergence_let.pinf", "f", _results_only_termination, "termination"),
    ("shadowed_normal_fold.pinf", "main", _likelihood_by_spelling, "closed form"),
]


def kernel_refuses_buggy_builder(monkeypatch, path: Path, claim: str, bug, reason: str):
    """With ``bug`` simulated (the fixed check monkeypatched back), the builder verifies
    ``claim`` of ``path``; the kernel refuses its certificate, naming ``reason``; and the
    builder, fixed, does not verify the claim."""
    with monkeypatch.context() as patch:
        bug(patch)
        verdicts, cert = _certify(path)
    assert verdicts[claim] == VERIFIED, "the simulated bug no longer fools the builder"
    outcome = kernel.check(cert)
    assert not outcome.valid and reason in outcome.reason, outcome.reason
    assert _certify(path)[0][claim] != VERIFIED  # and the builder, fixed, refuses


@pytest.mark.parametrize("file, claim, bug, reason", BUGS, ids=[b[0] for b in BUGS])
def test_the_kernel_refuses_what_a_buggy_builder_verifies(monkeypatch, file, claim, bug,
                                                          reason):
    kernel_refuses_buggy_builder(monkeypatch, UNSOUND / file, claim, bug, reason)


def test_the_kernel_refuses_a_typed_parameter_taken_as_equal(monkeypatch):
    text = """val run :: M[DP(1.0)] {x :: bool | =} -> M[DP(0.5)] {x :: bool | =}
let run m = m
"""
    with monkeypatch.context() as patch:
        _typed_parameter_equal(patch)
        claims, cert = claims_and_certificate(text)
    assert claims["run"].verdict == VERIFIED
    outcome = kernel.check(cert)
    assert not outcome.valid and "cost" in outcome.reason, outcome.reason


def test_the_kernel_reads_the_claim_where_its_val_stands():
    """A certificate made for the program's own adj *before* the val (a vacuous claim),
    presented with the source that defines it *after* the val (the built-in adj in scope):
    the assumptions the kernel re-derives are the built-in's."""
    before = (UNSOUND / "adj_shadowed_after_val.pinf").read_text()
    lines = before.splitlines()
    own_adj = next(l for l in lines if l.startswith("let adj"))
    moved = "\n".join([own_adj] + [l for l in lines if l != own_adj]) + "\n"
    claims, _ = claims_and_certificate(moved)
    assert claims["main"].code == "V011"   # vacuous with that adj: not verified (V011)
    import verifier.verification as verification
    with pytest.MonkeyPatch.context() as patch:   # a builder without the vacuity check
        patch.setattr(verification, "vacuous", lambda *a, **k: None)
        claims, cert = claims_and_certificate(moved)
    assert claims["main"].verdict == VERIFIED  # the claim is vacuous with that adj
    import hashlib
    cert["source"]["text"] = before
    cert["source"]["sha256"] = hashlib.sha256(before.encode()).hexdigest()
    outcome = kernel.check(cert)
    assert not outcome.valid, "the kernel accepted the claim under another adj"


@pytest.mark.parametrize("path", sorted(UNSOUND.glob("*.pinf")), ids=lambda p: p.name)
def test_every_unsound_example_is_rejected_with_a_reason(path):
    verdicts, cert = _certify(path)
    assert VERIFIED not in [v for name, v in verdicts.items()
                            if name in ("main", "release", "noisyCount", "f")], verdicts
    assert kernel.check(cert).valid  # an honest record of the rejection
