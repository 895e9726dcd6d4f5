"""Proof artifacts: the checker accepts the library's proofs and rejects corrupted ones.

(The whole library is re-checked in test_lemmas_cli.py, through ``privinfer lemmas --check``.)
"""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction as F

import pytest
import sympy as sp

import lemmas
from lemmas import artifacts, checking, exprs, registry
from lemmas.artifacts import recheck
from lemmas.core import ArtifactBuilder, Lemma, params


def art(lemma_id):
    return copy.deepcopy(dict(lemmas.get(lemma_id).artifact))


def step(a, sid):
    return next(s for s in a["steps"] if s["id"] == sid)


def failing(a, needle=""):
    r = recheck(a)
    assert not r.ok, "a corrupted artifact re-checked"
    assert needle in r.reason, r.reason
    return r


# ---- the genuine artifacts ---------------------------------------------------------------

@pytest.mark.parametrize("lemma_id", ["gfun.increasing", "beta.hellinger.adjacent.rho",
                                      "beta.hellinger.adjacent.counterexample",
                                      "conj.beta_bernoulli.list", "mech.laplace"])
def test_genuine_artifacts_recheck_and_survive_a_json_round_trip(lemma_id):
    a = json.loads(json.dumps(art(lemma_id)))
    r = recheck(a)
    assert r.ok, r.reason
    assert recheck(json.dumps(a)).ok


def test_trust_base_is_reported():
    r = recheck(art("gfun.increasing"))
    assert "digamma.concave" in r.trusted and "rule.mvt" in r.trusted
    t = checking.trust_base(lemmas.get("beta.hellinger.adjacent.rho"))
    assert "gamma.logconvex" in t and "integral.dirichlet/k=2" in t
    assert not any(x.startswith(("literature:", "disputed:")) for x in t)
    assert "literature:mech.laplace" in checking.trust_base(lemmas.get("mech.laplace"))


# ---- corruption ---------------------------------------------------------------------------

def test_changed_number_fails():
    a = art("beta.hellinger.adjacent.counterexample")
    enc = next(s for s in a["steps"] if s["kind"] == "enclosure")
    enc["claim"] = enc["claim"].replace("1/20", "2")       # g(2)^2 = 0.88 > pi/4
    failing(a, "Arb does not certify")


def test_changed_number_in_a_hypothesis_fails():
    a = art("beta.hellinger.adjacent.rho")
    a["statement"]["hypotheses"][0] = "a >= 1/2"
    failing(a, "does not follow")
    assert not checking.check_lemma(lemmas.get("beta.hellinger.adjacent.rho"),
                                    {"beta.hellinger.adjacent.rho": a}).ok


def test_changed_expression_fails():
    a = art("gfun.at_one")
    a["steps"][0]["claim"] = "Eq(g(1), sqrt(pi)/3)"
    failing(a, "sympy")


def test_changed_conclusion_fails():
    a = art("beta.hellinger.adjacent")
    a["statement"]["conclusion"] = a["statement"]["conclusion"].replace("g(a0)*g(b0)", "g(a)*g(b)")
    assert "g(a)*g(b)" in a["statement"]["conclusion"]
    # the proof still ends in a valid bound with a = a0? no: with a >= a0 the weaker g(a0) was
    # proved, the stronger claim is not derivable
    failing(a, "does not follow")


def test_deleted_step_fails():
    a = art("beta.hellinger.adjacent")
    a["steps"] = [s for s in a["steps"] if s["id"] != "s2"]   # the monotonicity lemma
    failing(a, "s2")


def test_deleted_last_step_fails():
    a = art("gfun.bounds")
    a["steps"].pop()
    failing(a, "qed")


def test_deleted_supporting_step_of_a_literature_lemma_fails():
    a = art("mech.laplace")
    a["steps"] = [s for s in a["steps"] if s["kind"] == "cite"]
    failing(a, "not an earlier step")


def test_unused_step_fails():
    a = art("gfun.at_one")
    a["steps"].insert(0, {"id": "extra", "kind": "identity", "claim": "Eq(1, 1)",
                          "method": "expand"})
    failing(a, "not used")


def test_changed_fact_fails():
    a = art("gfun.increasing")
    f = next(s for s in a["steps"] if s["kind"] == "fact")
    f["claim"] = f["claim"].replace(">", ">=")
    failing(a, "differs from fact")
    f["fact"] = "no.such.fact"
    failing(a, "unknown fact")


def test_changed_instantiation_fails():
    a = art("beta.hellinger.adjacent")
    qed = a["steps"][-1]
    for p in qed["premises"]:
        if isinstance(p, dict) and p["at"].get("x") == "a0":
            p["at"]["y"] = "a0/2"   # g(a0) <= g(a0/2) is not what monotonicity gives
            break
    failing(a)


def test_changed_bayes_posterior_fails():
    a = art("conj.beta_bernoulli.list")
    b = next(s for s in a["steps"] if s["kind"] == "bayes")
    b["posterior"] = "BetaDist(a + c + 1, b + f)"
    b["claim"] = "Eq(Posterior(BetaDist(a, b), BernoulliCounts(c + f, c)), BetaDist(a + c + 1, b + f))"
    failing(a, "not proportional")


def test_changed_status_fails():
    a = art("gfun.at_one")
    a["status"] = "literature"
    failing(a, "cite")
    lemma = lemmas.get("gfun.at_one")
    assert "status" in checking.check_lemma(lemma, {"gfun.at_one": a}).reason


def test_tampered_citation_fails_in_the_library_check():
    lemma = lemmas.get("beta.hellinger.adjacent.rho")
    a = art(lemma.id)
    cite = next(s for s in a["steps"] if s["kind"] == "lemma")
    cite["statement"]["hypotheses"] = []   # pretend the general bound needs no hypotheses
    # recheck trusts the statements of cited lemmas, so alone this still re-checks ...
    assert recheck(a).ok
    real = {cite["lemma"]: lemmas.get(cite["lemma"]).statement_json()}
    assert not recheck(a, cited=real).ok
    r = checking.check_lemma(lemma, {lemma.id: a})
    assert not r.ok and "another statement" in r.reason  # ... but not against the registry


def test_circular_citations_are_rejected():
    at_one, bounds = art("gfun.at_one"), art("gfun.bounds")
    b_stmt = lemmas.get("gfun.bounds").statement_json()
    o_stmt = lemmas.get("gfun.at_one").statement_json()
    at_one["steps"].insert(0, {"id": "c", "kind": "lemma", "lemma": "gfun.bounds",
                               "statement": b_stmt})
    at_one["steps"][-1]["premises"].append({"step": "c", "at": {"x": "1"}})
    bounds["steps"].insert(0, {"id": "c", "kind": "lemma", "lemma": "gfun.at_one",
                               "statement": o_stmt})
    bounds["steps"][-1]["premises"].append("c")
    stored = {"gfun.at_one": at_one, "gfun.bounds": bounds}
    r = checking.check_lemma(lemmas.get("gfun.at_one"), stored)
    assert not r.ok and "circular" in r.reason


def test_a_proved_lemma_cannot_rest_on_a_disputed_one():
    poster = lemmas.get("mech.hellinger.poster")
    P = poster.parameters
    b = ArtifactBuilder("test.uses_disputed", "proved", P, poster.hypotheses, poster.conclusion)
    c = b.lemma(poster)
    b.qed([b.ref(c, **{p.name: p.symbol for p in P})])
    fake = Lemma("test.uses_disputed", "t", "t", P, poster.hypotheses, poster.conclusion, "test",
                 "proved", b.build())
    assert recheck(fake.artifact).ok            # the logic is fine ...
    r = checking.check_lemma(fake)
    assert not r.ok and "disputed" in r.reason  # ... the trust is not


def test_false_smt_claims_fail():
    P = params(("x", "pos"))
    x = P[0].symbol
    b = ArtifactBuilder("test.false", "proved", P, (), sp.Gt(x, 1))
    b.qed([])
    r = failing(b.build(), "countermodel")
    assert "x" in r.reason


def test_garbage_never_raises():
    for bad in ("not json", "{}", {"format": artifacts.FORMAT}, [],
                {"format": artifacts.FORMAT, "lemma": "x", "status": "proved", "symbols": [],
                 "statement": {"parameters": [], "hypotheses": [], "conclusion": "1 < 2"},
                 "steps": [1, 2]},
                {"format": artifacts.FORMAT, "lemma": "x", "status": "proved", "symbols": [],
                 "statement": {"parameters": [], "hypotheses": [],
                               "conclusion": "__import__('os')"}, "steps": []}):
        r = recheck(bad)
        assert not r.ok and r.reason


def test_enclosure_steps_refuse_equalities_and_floats():
    P = ()
    claim = sp.Lt(sp.pi, 4, evaluate=False)
    b = ArtifactBuilder("test.enc", "proved", P, (), claim)
    s = b.enclosure(claim)
    b.qed([s])
    a = b.build()
    assert recheck(a).ok
    a["steps"][0]["claim"] = "Eq(pi, 355/113)"
    failing(a)
    a["steps"][0]["claim"] = "pi < 3.2"       # decimals are exact rationals: still fine
    assert recheck(a).ok
    a["steps"][0]["claim"] = "pi < 3.14"
    failing(a, "Arb does not certify")


# ---- the Lemma 6.1 refutation -----------------------------------------------------------

def test_lemma_6_1_as_stated_does_not_recheck():
    from lemmas import refutations
    a = refutations.attempt_lemma_6_1_as_stated()
    r = recheck(a)
    assert not r.ok and "does not follow" in r.reason
    # the corrected statement (a, b >= 1) is proved, and the counterexample lemma is proved
    assert checking.check_lemma(lemmas.get("beta.hellinger.adjacent.counterexample")).ok


# ---- the term language ------------------------------------------------------------------

def test_every_library_formula_round_trips_through_text():
    for lemma in lemmas.all_lemmas():
        a = lemma.artifact
        table = exprs.symbols_of([tuple(s) for s in a["symbols"]])
        texts = list(a["statement"]["hypotheses"]) + [a["statement"]["conclusion"]]
        texts += [s["claim"] for s in a["steps"] if "claim" in s and s["kind"] != "fact"]
        for t in texts:
            e = exprs.parse(t, table)
            assert exprs.parse(exprs.show(e), table) == e, t


def test_parser_is_a_whitelist():
    table = exprs.symbols_of([("x", "pos")])
    for bad in ["__import__('os').system('true')", "x.real", "open('f')", "lambda: 1",
                "[x for x in y]", "x if x else x", "'s'", "y + 1", "f(x)", "x**100001"]:
        with pytest.raises(exprs.TermError):
            exprs.parse(bad, table)
    assert exprs.parse("0.05", table) == sp.Rational(1, 20)
    assert exprs.parse("1e-8", table) == sp.Rational(1, 10 ** 8)
    with pytest.raises(exprs.TermError):
        exprs.show(sp.Float(0.5) * table["x"])


# ---- registry and instances -------------------------------------------------------------

def test_registry_rejects_duplicates_and_unknowns():
    with pytest.raises(lemmas.DuplicateLemmaError):
        lemmas.register(lemmas.get("gfun.at_one"))
    with pytest.raises(lemmas.DuplicateLemmaError):
        registry.register_lazy("gfun.at_one", lambda: None)
    with pytest.raises(lemmas.UnknownLemmaError):
        lemmas.get("no.such.lemma")
    with pytest.raises(lemmas.UnknownLemmaError):
        lemmas.get("dirichlet.hellinger.adjacent")      # a family: needs k
    with pytest.raises(lemmas.UnknownLemmaError):
        lemmas.get("dirichlet.hellinger.adjacent", k=99)
    assert "beta.hellinger.adjacent.rho" in lemmas.ids()


def test_instantiate_gives_obligations():
    lem = lemmas.get("beta.hellinger.adjacent.rho")
    a, b = sp.symbols("a b", real=True)
    n = sp.Symbol("n")
    inst = lem.instantiate({"a": a, "b": b, "n": n, "c1": 3, "c2": 2})
    assert sp.Ge(a, 1) in inst.hypotheses and sp.Gt(a, 0) in inst.hypotheses
    assert n in inst.integer_terms
    assert inst.conclusion.rhs == sp.sqrt(1 - sp.pi / 4)
    with pytest.raises(TypeError):
        lem.instantiate({"a": 0.5, "b": 1, "n": 1, "c1": 0, "c2": 1})
    with pytest.raises(KeyError):
        lem.instantiate({"a": 1})
    with pytest.raises(KeyError):
        lem.instantiate({"a": 1, "b": 1, "n": 1, "c1": 0, "c2": 1, "zz": 3})
    bad = lem.instantiate({"a": F(1, 2), "b": 1, "n": 1, "c1": 0, "c2": 1})
    assert sp.false in bad.hypotheses          # a >= 1 fails: the caller cannot discharge it


def test_lemma_rejects_an_artifact_for_another_statement():
    lem = lemmas.get("gfun.at_one")
    a = copy.deepcopy(dict(lem.artifact))
    a["statement"]["conclusion"] = "Eq(g(1), 1)"
    with pytest.raises(ValueError):
        Lemma(lem.id, lem.title, lem.statement, lem.parameters, lem.hypotheses, lem.conclusion,
              lem.source, lem.status, a)


# ---- extension: a new conjugate pair ------------------------------------------------------

def test_add_conjugate_pair_gamma_poisson():
    from lemmas.extend import add_conjugate_pair
    kw = dict(prior="GammaDist", prior_params=[("al", "pos"), ("be", "pos")], variables=["t"],
              domain="halfline", density="be**al*t**(al - 1)*exp(-be*t)/gamma(al)",
              likelihood="PoissonCounts", likelihood_params=[("n", "nat"), ("s", "nat")],
              likelihood_body="t**s*exp(-n*t)")
    lem = add_conjugate_pair("test.conj.gamma_poisson", posterior=["al + s", "be + n"],
                             register=False, **kw)
    r = recheck(json.loads(json.dumps(lem.artifact)))
    assert r.ok and "rule.bayes" in r.trusted
    assert "vocabulary" in lem.artifact and "density" in lem.artifact["vocabulary"]["GammaDist"]
    with pytest.raises(artifacts.ArtifactError):
        add_conjugate_pair("test.conj.gamma_poisson.bad", posterior=["al + s", "be + n + 1"],
                           register=False, **kw)
    # an artifact cannot redefine the density of a family
    a = copy.deepcopy(lem.artifact)
    a["vocabulary"]["GammaDist"]["density"]["body"] = "t**(al - 1)*exp(-be*t)"
    assert not recheck(a).ok


def test_artifacts_module_imports_nothing_from_verifier():
    code = ("import sys, lemmas.artifacts as A; "
            "bad = [m for m in sys.modules if m == 'verifier' or m.startswith('verifier.')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(__import__("pathlib").Path(
        __file__).resolve().parents[1]))
