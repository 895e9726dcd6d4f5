"""Ranges inside data types (issue 24): the element ranges of list types (``nat list``,
``real+ list``, ``[0,1] list``, ``[k] list``) are proved where data enters, assumed where it is
used, and respected by every witness of a refutation.

Must-pass programs beside must-fail ones: a definition assumes the ranges of its parameters'
elements (induction included: the tail of a ``nat list`` is a ``nat list``), a call proves
them of its arguments, a definition proves them of its result, the Hellinger mechanisms'
data are the categories of their prior, a flow of an ``int`` where a ``[k]`` is expected is a
condition where it happens, and a refutation's witness is made of values of the claim's types.
"""
from __future__ import annotations

import pytest

from checker import kernel
from obligations import terms as T
from obligations import vocabulary as V
from verifier.language import ast as A
from verifier.language import types as ty
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program
from verifier.translation import logic as L
from verifier.verification import REFUTED, UNKNOWN, VERIFIED
from verify_helpers import claims_and_certificate

verify = claims_and_certificate


def verified(text: str, *names: str) -> dict:
    """Verify ``text``: the named claims (all, by default) are verified and the certificate
    is valid for the kernel."""
    claims, cert = verify(text)
    for name in names or claims:
        assert claims[name].verdict == VERIFIED, (name, claims[name].failure)
    assert kernel.check(cert).valid
    return claims


def rejected(text: str, name: str) -> object:
    """Verify ``text``: the claim ``name`` is not verified (refuted or unknown)."""
    claims, _ = verify(text)
    assert claims[name].verdict in (REFUTED, UNKNOWN), claims[name].failure
    return claims[name]


# ---- the logic: one notion of "a value of this type" -------------------------------------------


def test_range_facts_of_list_types():
    ints, reals, fin3 = (T.var("l", L.list_sort(k)) for k in ("int", "real", "fin3"))
    assert L.range_facts(A.TList(A.TBase("nat")), ints) == (V.all_in("nat", ints),)
    assert L.range_facts(A.TList(A.TBase("real+")), reals) == (V.all_in("pos", reals),)
    assert L.range_facts(A.TList(A.TBase("[0,1]")), reals) == (V.all_in("unit", reals),)
    assert L.range_facts(A.TList(A.TFin(3)), ints) == (V.all_in("fin3", ints),)
    # a [3] list's sort keeps its elements in 0..2: it is a nat list and a [3] list already
    assert L.range_facts(A.TList(A.TFin(3)), fin3) == ()
    assert L.range_facts(A.TList(A.TBase("nat")), fin3) == ()
    assert L.range_facts(A.TList(A.TBase("int")), ints) == ()
    # scalars as before
    x = T.var("x", T.INT)
    assert L.range_facts(A.TBase("nat"), x) == (T.ge(x, 0),)
    assert L.range_facts(A.TFin(3), x) == (T.ge(x, 0), T.lt(x, 3))


def test_narrowing_is_found_where_an_int_meets_a_k():
    fin3 = ty.fin(3)
    assert ty.narrowing(ty.INT, fin3) == ty.VALUE
    assert ty.narrowing(ty.ListType(ty.INT), ty.ListType(fin3)) == ty.VALUE
    assert ty.narrowing(ty.TupleType((ty.BOOL, ty.INT)), ty.TupleType((ty.BOOL, fin3))) == ty.VALUE
    assert ty.narrowing(ty.Monad(ty.INT), ty.Monad(fin3)) == ty.COMPUTATION
    assert ty.narrowing(ty.Arrow(fin3, ty.BOOL), ty.Arrow(ty.INT, ty.BOOL)) == ty.FUNCTION
    assert ty.narrowing(ty.ListType(fin3), ty.ListType(ty.INT)) is None
    assert ty.narrowing(ty.INT, ty.REAL) is None


def test_the_type_checker_records_narrowing_flows():
    program = parse_program("let f (l : [3] list) = length l\nlet g (m : int list) = f m\n",
                            "t.pinf")
    typed = typecheck_program(program)
    call = program.lets()[1].body
    assert [kind for _, kind, _ in typed.narrowings(call.arg)] == [ty.VALUE]


def test_check_value_traverses_lists():
    from verifier.errors import PrivInferError
    from verifier.semantics.evaluator import check_value
    from verifier.semantics.values import ConsList
    check_value(ConsList.from_sequence([0, 2]), A.TList(A.TBase("nat")), "l")
    with pytest.raises(PrivInferError):
        check_value(ConsList.from_sequence([0, -1]), A.TList(A.TBase("nat")), "l")
    with pytest.raises(PrivInferError):
        check_value(ConsList.from_sequence([3]), A.TList(A.TFin(3)), "l")


def test_a_counterexample_has_the_elements_its_hypotheses_say():
    """The concrete search encodes allIn: a counterexample of an obligation about a nat list
    has natural elements."""
    from obligations.model import Obligation, ObligationKind, Provenance
    from obligations.z3_backend import discharge
    l = T.var("l", L.list_sort("int"))
    x, xs = T.var("x", T.INT), T.var("xs", L.list_sort("int"))
    from obligations import schemas
    hyps = (("h_l_range", V.all_in("nat", l)), ("h_cons", T.eq(l, V.cons(x, xs))))
    goal = T.ge(x, 5)

    def axioms(goal):
        return tuple((i.name, i.term) for i in schemas.instantiate([t for _, t in hyps] + [goal]))
    ob = Obligation(kind=ObligationKind.ENTAILMENT, hypotheses=hyps, goal=goal,
                    axioms=axioms(goal), provenance=Provenance("test", "", "test"))
    result = discharge(ob)
    assert result.refuted
    shown = result.counterexample_dict()
    assert int(shown[x.label]) >= 0 and "-" not in shown[l.label]
    # and the head's range is a proof: x >= 0 follows
    ob = Obligation(kind=ObligationKind.ENTAILMENT, hypotheses=hyps, goal=T.ge(x, 0),
                    axioms=axioms(T.ge(x, 0)), provenance=Provenance("test", "", "test"))
    assert discharge(ob).verdict.value == "verified"


# ---- assumed where used: the parameters' elements, induction included ---------------------------

CLIPPED_SUM = """
val clippedSum :: {u :: real+ | =} -> {l :: ELEM list | adj (l<1>, l<2>)}
               -> {s :: real | abs (s<1> - s<2>) <= u}
let rec clippedSum u l = match l with
  | [] -> 0.0
  | x :: xs -> min (x, u) + clippedSum u xs
"""


def test_the_bounded_sum_of_a_nat_list_verifies():
    """Issue 24: true, and once "refuted" at l<1> = [-1], which is no nat list."""
    verified(CLIPPED_SUM.replace("ELEM", "nat"))


def test_the_bounded_sum_of_an_int_list_is_refuted_by_ints():
    claim = rejected(CLIPPED_SUM.replace("ELEM", "int"), "clippedSum")
    assert claim.verdict == REFUTED


def test_the_elements_of_parameters_are_hypotheses():
    verified("""
val firstInv :: {l :: real+ list | =} -> {r :: real | =}
let firstInv l = match l with | [] -> 0.0 | x :: xs -> 1.0 / x

val total :: {l :: nat list | =} -> {r :: nat | =}
let rec total l = match l with | [] -> 0 | x :: xs -> x + total xs

val boundedSum :: {l :: [0,1] list | =} -> {r :: real | r<1> <= length l<1> /\\ r<1> >= 0.0}
let boundedSum l = sum l

val root :: {l :: nat list | =} -> {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let root l eps = match l with | [] -> lapMech (eps, 0.0) | x :: xs -> lapMech (eps, sqrt x)
""")


def test_a_witness_is_made_of_values_of_the_claims_types():
    claims, _ = verify("""
val first :: {l :: nat list | =} -> {r :: real | r<1> >= 1.0}
let first l = match l with | [] -> 1.0 | x :: xs -> x
""")
    first = claims["first"]
    assert first.verdict == REFUTED
    assert first.confirmation is not None
    for _, run1, run2 in first.confirmation.inputs:
        assert "-" not in run1 + run2   # [0], never a negative element


# ---- proved where data enters -------------------------------------------------------------------

SMALL = """
let small (x : [3]) = x = 0
val firstSmall :: {l :: [3] list | =} -> {b :: bool | =}
let firstSmall l = match l with | [] -> true | x :: xs -> small x
"""


def test_a_val_taking_a_k_list_is_called_with_one():
    verified(SMALL + """
val main :: {l :: [3] list | =} -> {b :: bool | =}
let main l = firstSmall l
""")


def test_a_val_taking_a_k_list_called_with_an_int_list_is_refuted_by_the_run_that_stops():
    claim = rejected(SMALL + """
val main :: {l :: int list | =} -> {b :: bool | =}
let main l = firstSmall l
""", "main")
    assert claim.verdict == REFUTED and "stops" in claim.failure


def test_a_nat_list_domain_at_a_monadic_call():
    text = """
val root :: {l :: nat list | =} -> {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let root l eps = match l with | [] -> lapMech (eps, 0.0) | x :: xs -> lapMech (eps, sqrt x)

val main :: {l :: ELEM list | =} -> {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let main l eps = root l eps
"""
    verified(text.replace("ELEM", "nat"))
    assert rejected(text.replace("ELEM", "int"), "main").verdict == REFUTED


@pytest.mark.parametrize("mech", ["hellingerMechPure (eps, dirichlet (1.0, 1.0, 1.0), db)",
                                  "hellingerMech (eps, 0.001, dirichlet (1.0, 1.0, 1.0), db)"])
@pytest.mark.parametrize("elem", ["int", "nat"])
def test_the_hellinger_mechanisms_data_are_categories_of_the_prior(mech, elem):
    claim = rejected(f"""
val release :: {{db :: {elem} list | adj (db<1>, db<2>)}} -> {{eps :: real+ | =}}
            -> M[DP(eps)] {{r :: [0,1] | =}}
let release db eps = mlet d = {mech} in return 0.5
""", "release")
    assert claim.verdict == REFUTED and "is not in [3]" in claim.failure


def test_the_hellinger_mechanism_on_a_k_list_needs_nothing_more():
    claims, _ = verify("""
val release :: {db :: [3] list | adj (db<1>, db<2>)} -> {eps :: real+ | =}
            -> M[DP(eps)] {r :: [0,1] | =}
let release db eps = mlet d = hellingerMechPure (eps, dirichlet (1.0, 1.0, 1.0), db) in return 0.5
""")
    assert claims["release"].verdict == VERIFIED
    assert not any("categories" in ob.provenance.description
                   for ob in claims["release"].obligations)


def test_a_result_has_the_element_ranges_its_val_says():
    verified("""
val k :: {l :: [3] list | =} -> {m :: nat list | =}
let k l = 0 :: l

val dropNeg :: {l :: int list | =} -> {m :: nat list | =}
let rec dropNeg l = match l with
  | [] -> []
  | x :: xs -> if x >= 0 then x :: dropNeg xs else dropNeg xs
""")
    claim = rejected("""
val h :: {l :: int list | =} -> {m :: nat list | =}
let h l = l
""", "h")
    assert claim.verdict == REFUTED and "not a value of nat list" in claim.failure
    rejected("""
val m :: {l :: int list | =} -> {eps :: real+ | =} -> M[DP(eps)] {r :: nat list | =}
let m l eps = return l
""", "m")


# ---- annotations and narrowing flows --------------------------------------------------------------

@pytest.mark.parametrize("body", [
    "let (y : [3]) = x in y = 0",                       # a let binds
    "let (p : [3] * bool) = (x, true) in fst p = 0",    # a tuple annotation
    "(fun (y : [3]) -> y = 0) x",                       # a fun binds
])
def test_annotations_are_range_conditions_where_they_bind(body):
    claim = rejected(f"""
val f :: {{x :: int | =}} -> {{b :: bool | =}}
let f x = {body}
""", "f")
    assert claim.verdict == REFUTED and "stops" in claim.failure


def test_annotations_in_monadic_code_are_range_conditions():
    rejected("""
let h (x : [3]) = return x
val f :: {x :: int | =} -> {eps :: real+ | =} -> M[DP(eps)] {r :: int | =}
let f x eps = h x
""", "f")
    rejected("""
val f :: {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let f eps = mlet (z : real+) = lapMech (eps, 0.0) in return 1.0
""", "f")


def test_an_element_of_a_k_list_out_of_range_makes_nothing_provable():
    claim = rejected("""
val bad :: {l :: [3] list | =} -> {b :: bool | b<1> = false}
let bad l = (fun y -> length (y :: l) > 0) 7
""", "bad")
    assert claim.verdict == REFUTED


def test_a_guarded_element_of_a_k_list_stays_in_range_on_every_path():
    claim = rejected("""
val main :: {h :: int | =} -> {l :: [3] list | =} -> {s :: real | true} -> {eps :: real+ | =}
         -> M[DP(eps)] {r :: real | =}
let main h l s eps =
  let m = (if h >= 0 && h < 3 then h :: l else l) in
  lapMech (eps, if h >= 3 then s + 0.0 * length m else 0.0)
""", "main")
    assert claim.verdict == REFUTED


def test_a_list_used_at_a_narrower_type_than_its_vals():
    claim = rejected("""
let h (l : [3] list) = return l
val main :: {l :: int list | =} -> {s :: real | true} -> {eps :: real+ | =}
         -> M[DP(eps)] {r :: real | =}
let main l s eps = mlet m = h l in
  match m with
  | [] -> return 0.0
  | x :: xs -> lapMech (eps, if x < 3 then 0.0 else s)
""", "main")
    # the val types the parameter (an int list); the narrowing is where it flows into h
    assert "l has type [3] list" in claim.failure


def test_a_function_flowing_where_a_wider_one_is_expected_is_refused():
    claim = rejected("""
let small (x : [3]) = x = 0
let apply f = f 7
val main :: {b :: bool | =} -> {r :: bool | =}
let main b = apply small
""", "main")
    assert claim.verdict in (REFUTED, UNKNOWN)


def test_candidates_get_the_facts_of_their_term_not_of_an_annotation():
    rejected("""
let pick (rs : [3] list) eps = expMech (eps, fun (x, r) -> 0.0, (), rs)
val main :: {eps :: real+ | =} -> M[DP(eps)] {r :: [3] | =}
let main eps = pick [7] eps
""", "main")


def test_lists_the_logic_keeps_apart_are_not_a_crash():
    claims, _ = verify("""
val g :: {l :: [3] list | =} -> {b :: bool | =}
let g l = l = [1; 7]
""")
    assert claims["g"].verdict == UNKNOWN


# ---- the kernel derives the element ranges itself -----------------------------------------------

def _no_catalogue_ranges(patch):
    """The old builder: a mechanism's arguments translated, none of their catalogue ranges
    required, no narrowing flows (``hellingerMechPure`` on an ``int list``)."""
    from verifier.rules import builder, safety
    patch.setattr(safety.Safety, "arguments",
                  lambda self, ctx, name, args, sizes=None: [self.value(ctx, a) for a in args])
    patch.setattr(builder.Builder, "narrowings", lambda self, e: ())


@pytest.mark.parametrize("file, claim, bug", [
    ("hellinger_data_outside_categories.pinf", "release", _no_catalogue_ranges),
])
def test_the_kernel_refuses_what_a_builder_without_ranges_verifies(monkeypatch, file, claim, bug):
    """A builder with the old Safety verifies the attack; the kernel, with its own Safety,
    refuses the certificate (and the fixed builder does not verify it)."""
    from test_binding import UNSOUND, kernel_refuses_buggy_builder
    kernel_refuses_buggy_builder(monkeypatch, UNSOUND / file, claim, bug, "[Range] is not proved")


# ---- one [k] into another -------------------------------------------------------------------------

def test_a_narrower_k_flows_into_a_wider_one_and_a_wider_one_is_a_condition():
    """LANGUAGE.md: ``[k]`` is a range of ``int`` and simple typing treats it as ``int``; a
    ``[2]`` is a ``[3]`` (no condition), a ``[4]`` where a ``[3]`` is expected is a range
    condition where it flows, as an ``int`` is (once a type error T002)."""
    fin2, fin3, fin4 = ty.fin(2), ty.fin(3), ty.fin(4)
    assert ty.narrowing(fin2, fin3) is None
    assert ty.narrowing(fin4, fin3) == ty.VALUE
    assert ty.narrowing(ty.ListType(fin4), ty.ListType(fin3)) == ty.VALUE
    assert ty.narrowing(ty.Arrow(fin3, ty.BOOL), ty.Arrow(fin4, ty.BOOL)) == ty.FUNCTION
    assert ty.narrowing(ty.Arrow(fin4, ty.BOOL), ty.Arrow(fin3, ty.BOOL)) is None
    claims = verified("""
val pick :: {l :: [3] list | adj (l<1>, l<2>)} -> {r :: real | abs (r<1> - r<2>) <= 1.0}
let rec pick (l : [3] list) = match l with
  | [] -> 0.0
  | x :: xs -> (if x = 2 then 1.0 else 0.0) + pick xs
val small :: {l :: [2] list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: real | =}
let small (l : [2] list) = lapMech (1.0, pick l)
val one :: {x :: [2] | =} -> {r :: bool | =}
let one (x : [2]) = (fun (y : [3]) -> y = 2) x
val guarded :: {x :: [4] | =} -> {z :: [3] | =}
let guarded (x : [4]) = if x < 3 then (let (z : [3]) = x in z) else 0
""")
    assert set(claims) == {"pick", "small", "one", "guarded"}


@pytest.mark.parametrize("text, name", [
    ("val k :: {x :: [3] | =} -> {z :: [2] | =}\nlet k (x : [3]) = let (z : [2]) = x in z", "k"),
    ("val k :: {x :: [3] | =} -> {z :: [2] | =}\nlet k x = x", "k"),
    ("val k :: {x :: [3] list | =} -> {z :: [2] list | =}\nlet k x = x", "k"),
    ("let pick (l : [3] list) = length l\n"
     "val wide :: {l :: [4] list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: real | =}\n"
     "let wide (l : [4] list) = lapMech (1.0, pick l)", "wide"),
])
def test_a_wider_k_where_a_narrower_is_expected_is_never_verified(text, name):
    claim = rejected(text, name)
    assert claim.verdict in (REFUTED, UNKNOWN)
