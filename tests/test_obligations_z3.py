"""Discharging obligations with z3: verified, refuted (confirmed) and unknown."""
from fractions import Fraction

import pytest

from obligations import (BOOL, INT, REAL, FuncDecl, Obligation, ObligationKind, Provenance,
                         Verdict, add, and_, discharge, div, encode, eq, exp, forall, ge, gt,
                         implies, le, log, lt, mul, pi, real, sqrt, sub, uninterpreted_sort, var)
from obligations import z3_backend
from obligations.z3_backend import recheck_core

PROV = Provenance("test", "n0", "a test obligation")
eps, x, y, z = (var(n, REAL) for n in ("eps", "x", "y", "z"))
RHO = sqrt(sub(1, div(pi(), 4)))  # sqrt (1 - pi/4) = 0.4632...
LB = uninterpreted_sort("List[bool]")
LENGTH = FuncDecl("length", (LB,), INT)
ADJ = FuncDecl("adj", (LB, LB), BOOL)


def ob(goal, hypotheses=(), axioms=(), kind=ObligationKind.ENTAILMENT):
    return Obligation(kind=kind, hypotheses=hypotheses, axioms=axioms, goal=goal, provenance=PROV)


def test_half_of_a_positive_epsilon_is_smaller():
    r = discharge(ob(lt(div(eps, 2), eps), {"h_eps_pos": gt(eps, 0), "h_unused": gt(x, 3)}))
    assert r.verdict == Verdict.VERIFIED and r.method == "z3" and r.solver == "z3"
    assert r.core == ("h_eps_pos",)  # the re-checked core, without the unused hypothesis
    assert "re-checked" in r.reason
    assert r.rlimit == z3_backend.DEFAULT_RLIMIT and r.resources > 0


def test_unconstrained_goal_is_refuted_with_a_confirmed_counterexample():
    r = discharge(ob(gt(x, 0), kind=ObligationKind.RANGE))
    assert r.verdict == Verdict.REFUTED
    [binding] = r.counterexample
    assert binding.name == "x" and Fraction(binding.value) <= 0
    assert float(binding.approx) == float(Fraction(binding.value))


def test_run_tagged_counterexample_is_printed_with_exact_rationals():
    a1 = var("aPn", REAL, 1)
    r = discharge(ob(gt(a1, 0), {"h_lo": ge(a1, real("-0.5")), "h_hi": le(a1, real("-0.5"))}))
    assert r.verdict == Verdict.REFUTED
    assert r.counterexample_dict() == {"aPn<1>": "-1/2"}
    assert r.counterexample[0].approx == "-0.5"


def test_rho_bounds():
    assert discharge(ob(lt(RHO, real("0.47")))).verdict == Verdict.VERIFIED
    refuted = discharge(ob(lt(RHO, real("0.46"))))
    assert refuted.verdict == Verdict.REFUTED and refuted.counterexample == ()
    assert discharge(ob(gt(RHO, real("0.4632")))).verdict == Verdict.VERIFIED


def test_rho_times_epsilon():
    same = discharge(ob(le(mul(RHO, eps), mul(RHO, eps))))
    assert same.verdict == Verdict.VERIFIED
    r = discharge(ob(le(mul(RHO, eps), mul(real("0.47"), eps)), {"h_eps_pos": gt(eps, 0)}))
    assert r.verdict == Verdict.VERIFIED and r.method == "z3" and r.core == ("h_eps_pos",)


def test_tiny_rlimit_gives_unknown_never_verified():
    hard = ob(ge(add(x, y, z), 3), {"h_pos": and_(gt(x, 0), gt(y, 0), gt(z, 0)),
                                    "h_prod": gt(mul(x, y, z), 1)})
    r = discharge(hard, rlimit=50)
    assert r.verdict == Verdict.UNKNOWN and r.rlimit == 50
    assert r.reason.startswith("z3 returned unknown")
    f = FuncDecl("f", (REAL,), REAL)
    quantified = ob(gt(f(real(1)), 5), axioms={"ax_f": forall(y, gt(f(f(y)), add(f(y), mul(y, y))))})
    assert discharge(quantified, rlimit=50).verdict == Verdict.UNKNOWN


def test_spurious_model_of_exp_is_unknown_not_refuted():
    # For a variable argument the encoding only knows exp x >= 1 + x (tangent), so z3's model
    # may take exp 1 = 2; the true value is 2.718..., the goal holds at the model: no
    # counterexample.
    r = discharge(ob(gt(exp(x), 2), {"h_x": eq(x, 1)}))
    assert r.verdict == Verdict.UNKNOWN and "candidate counterexample" in r.reason
    assert "goal holds there" in r.reason
    # the hypothesis exp x = 2 pins x = log 2 = 0.693...; z3 picks some x the encoding allows
    # and the true exp is not 2 there: the hypothesis fails, so again no counterexample
    r = discharge(ob(gt(x, real("0.7")), {"h_exp": eq(exp(x), 2)}))
    assert r.verdict == Verdict.UNKNOWN and "h_exp is false there" in r.reason


def test_closed_applications_are_enclosed():
    assert discharge(ob(gt(exp(real(1)), real("2.71828")))).verdict == Verdict.VERIFIED
    assert discharge(ob(lt(exp(real(1)), real("2.71829")))).verdict == Verdict.VERIFIED
    refuted = discharge(ob(lt(exp(real(1)), real("2.71828"))))
    assert refuted.verdict == Verdict.REFUTED and refuted.counterexample == ()
    assert discharge(ob(eq(sqrt(real(4)), 2))).verdict == Verdict.VERIFIED
    assert discharge(ob(lt(log(div(real("1.25"), real("0.01"))), real("4.83")))).verdict == Verdict.VERIFIED


def test_algebraic_counterexample_is_confirmed_exactly():
    r = discharge(ob(lt(x, real("1.4")), {"h_sq": eq(mul(x, x), 2), "h_pos": gt(x, 0)}))
    assert r.verdict == Verdict.REFUTED  # x = sqrt 2, an algebraic number
    assert r.counterexample[0].value.startswith("(root-obj") and r.counterexample[0].approx.startswith("1.41421")


def test_unspecified_division_by_zero_is_not_a_counterexample():
    r = discharge(ob(eq(mul(div(1, x), x), 1)))
    assert r.verdict == Verdict.UNKNOWN and "divides by zero" in r.reason


def test_transcendental_facts_prove_simple_goals():
    for goal, hyps in [
        (eq(exp(log(x)), x), {"h_x_pos": gt(x, 0)}),
        (gt(log(x), 0), {"h_x_gt1": gt(x, 1)}),
        (lt(exp(x), exp(y)), {"h_lt": lt(x, y)}),
        (lt(log(real("1.25")), real("0.3")), {}),
        (forall(y, gt(exp(y), 0)), {}),
        (gt(div(sqrt(mul(2, log(div(real("1.25"), x)))), eps), 0),  # sigma (eps, delta) > 0
         {"h_delta": and_(gt(x, 0), lt(x, 1)), "h_eps_pos": gt(eps, 0)}),
    ]:
        assert discharge(ob(goal, hyps)).verdict == Verdict.VERIFIED, str(goal)


def test_uninterpreted_symbols_and_relative_counterexamples():
    l1, l2, l = var("l", LB, 1), var("l", LB, 2), var("l", LB)
    axioms = {"ax_length_nonneg": forall(l, ge(LENGTH(l), 0))}
    hyps = {"h_adj": ADJ(l1, l2), "h_eps_pos": gt(eps, 0)}
    ok = discharge(ob(ge(mul(add(LENGTH(l1), 1), eps), 0), hyps, axioms))
    assert ok.verdict == Verdict.VERIFIED and set(ok.core) == {"h_eps_pos", "ax_length_nonneg"}
    bad = discharge(ob(ge(LENGTH(l1), 1), hyps, axioms))
    assert bad.verdict == Verdict.REFUTED and "built-ins' definitions" in bad.reason
    cex = bad.counterexample_dict()
    assert cex["l<1>"] == "[]" and cex["l<2>"] in ("[]", "[false]", "[true]")  # concrete lists
    # a model that relies on what no lists do is not a counterexample: length l<2> = -1
    odd = discharge(ob(ge(LENGTH(l2), 0), hyps))
    assert odd.verdict == Verdict.UNKNOWN and odd.lacking == "a fact about length"


def test_unsat_core_is_rechecked():
    o = ob(lt(div(eps, 2), eps), {"h_eps_pos": gt(eps, 0), "h_unused": gt(x, 3)})
    problem = encode(o)
    assert recheck_core(problem, ["h_eps_pos", "goal"], 1000) == "unsat"
    assert recheck_core(problem, ["goal"], 1000) == "sat"  # a wrong core is caught


def test_a_core_that_fails_its_recheck_is_not_trusted(monkeypatch):
    monkeypatch.setattr(z3_backend, "recheck_core", lambda *args: "sat")
    r = discharge(ob(lt(div(eps, 2), eps), {"h_eps_pos": gt(eps, 0), "h_unused": gt(x, 3)}))
    assert r.verdict == Verdict.UNKNOWN and "re-checked as sat" in r.reason


def test_a_core_of_every_assertion_is_not_run_again(monkeypatch):
    calls = []
    monkeypatch.setattr(z3_backend, "recheck_core", lambda *args: calls.append(args) or "sat")
    r = discharge(ob(lt(div(eps, 2), eps), {"h_eps_pos": gt(eps, 0)}))
    assert r.verdict == Verdict.VERIFIED and "core is every assertion" in r.reason
    assert not calls


def test_a_probe_skips_the_recheck_and_an_obligation_never_reuses_its_answer(monkeypatch):
    """``recheck=False`` (an inference's probe) takes z3's unsat as it is; the same problem
    discharged as an obligation in the same session is re-checked, not read from the probe's
    memo (here the re-check fails, so the obligation is not verified)."""
    from obligations.smtlib import Z3Session
    calls = []
    monkeypatch.setattr(z3_backend, "recheck_core", lambda *args: calls.append(args) or "sat")
    session = Z3Session()
    o = ob(lt(div(eps, 2), eps), {"h_eps_pos": gt(eps, 0), "h_unused": gt(x, 3)})
    probe = discharge(o, session=session, confirm=False, recheck=False)
    assert probe.verdict == Verdict.VERIFIED and "not re-checked" in probe.reason and not calls
    for confirm in (False, True):
        r = discharge(o, session=session, confirm=confirm)
        assert r.verdict == Verdict.UNKNOWN and "re-checked as sat" in r.reason
    assert calls


def test_contradictory_assumptions_are_reported():
    r = discharge(ob(gt(x, 100), {"h_a": gt(eps, 1), "h_b": lt(eps, 0)}))
    assert r.verdict == Verdict.VERIFIED and "contradictory" in r.reason
    assert r.core == ("h_a", "h_b")


def test_trivial_goals_skip_the_solver():
    r = discharge(ob(gt(eps, 0), {"h_eps_pos": gt(eps, 0)}))
    assert r.method == "trivial" and r.core == ("h_eps_pos",) and r.solver is None


def test_discharge_is_deterministic():
    o = ob(implies(gt(x, 1), gt(mul(x, x), x)), {"h_y": gt(y, 0)})
    first, second = discharge(o), discharge(o)
    assert first.verdict == second.verdict == Verdict.VERIFIED
    assert first.resources == second.resources
    assert first.to_json() | {"elapsed": 0} == second.to_json() | {"elapsed": 0}


@pytest.mark.parametrize("name", ["abs", "div", "exp", "to_real", "distinct"])
def test_program_names_that_are_theory_symbols(name):
    v = var(name, REAL, 1)
    assert discharge(ob(ge(mul(v, v), 0))).verdict == Verdict.VERIFIED
    assert discharge(ob(gt(v, 0))).counterexample[0].name == f"{name}<1>"


def test_decide_only_mode_does_not_confirm_models():
    """confirm=False (rule selection) reports a satisfiable negation as unknown without
    evaluating the model; verified answers are the same in both modes."""
    x = var("x", REAL)
    refutable = Obligation(kind=ObligationKind.ENTAILMENT, goal=gt(x, 0),
                           provenance=Provenance("test", "n1", "x is positive"))
    assert discharge(refutable).verdict == Verdict.REFUTED
    quick = discharge(refutable, confirm=False)
    assert quick.verdict == Verdict.UNKNOWN and not quick.counterexample
    provable = Obligation(kind=ObligationKind.ENTAILMENT, hypotheses={"h_pos": gt(x, 1)},
                          goal=gt(x, 0), provenance=Provenance("test", "n1", "x is positive"))
    assert discharge(provable, confirm=False).verdict == Verdict.VERIFIED
