"""Candidates of ``expMech`` drawn from ``posteriors (P, n)``: their family and parameters.

A candidate drawn from ``posteriors (beta (a, b), n)`` is ``beta (a + k, b + n - k)`` for an
integer 0 <= k <= n (lemma ``posteriors.members.beta``; Dirichlet: ``posteriors.members.
dirichlet/k=K``), so ``getParams`` of it translates. Here: the l1 output perturbation of the
paper's §2 verifies with its guarantee and its false variants are rejected (and shown false by
the exact audit); the member facts are exactly right (k = 0 and k = n are members); the
Hellinger examples keep their obligations; certificates check, and the kernel rebuilds the
candidate facts and refuses tampered ones; the lemma is true (numerically, against both
enumerations of ``posteriors``) and its artifact re-checks.
"""
from __future__ import annotations

import copy
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

import lemmas
from benchmarks.runner import parse_expectation
from checker import kernel
from checker.certify import certificate, dumps
from lemmas.artifacts import recheck
from lemmas.checking import check_lemma
from lemmas.closed_forms import Beta, Dirichlet
from lemmas.conjugacy import count_posteriors, posteriors as exact_posteriors
from obligations import terms as T
from obligations.candidates import conjugate
from obligations import vocabulary as V
from verifier.claim_audit import audit_program
from verifier.language.parser import parse_file, parse_program
from verifier.language.typecheck import typecheck_program
from verifier.rules import mechanism_rules
from verifier.semantics import distributions as sem_dist
from verifier.verification import verify_program

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "benchmarks" / "programs"
L1 = PROGRAMS / "classic" / "beta_output_l1.pinf"
GUARANTEE_2EPS = "main is (2.0 * eps, 0)-differentially private with respect to adj on its 1st argument"

LEARN_P = """
val learnP :: {l :: [3] list | =} -> M[SD] {x :: [0,1]^3 | =} -> M[SD] {x :: [0,1]^3 | =}
let rec learnP db prior = match db with
  | [] -> prior
  | d :: dbs -> observe (fun p -> mlet z = ran (categorical p) in return (d = z))
                        (learnP dbs prior)
"""

DIRICHLET_L1 = LEARN_P + """
let score (input, (out : D[[0,1]^3])) =
  let (db, a1, a2, a3) = input in
  let (p1, p2, p3) = getParams (infer (learnP db (ran (dirichlet (a1, a2, a3))))) in
  let (r1, r2, r3) = getParams out in
  0.0 - (abs (p1 - r1) + abs (p2 - r2) + abs (p3 - r3))

val main :: {l :: [3] list | adj (l<1>, l<2>)} -> {a1 :: real+ | =} -> {a2 :: real+ | =}
         -> {a3 :: real+ | =} -> {eps :: real+ | =} -> M[DP(BOUND * eps)] {d :: D[[0,1]^3] | =}
let main db a1 a2 a3 eps =
  expMech (eps, score, (db, a1, a2, a3), posteriors (dirichlet (a1, a2, a3), length db))
"""

# The score is 1-sensitive for candidates whose first parameter is in [a, a + n], and
# 100-sensitive outside: the claim holds exactly because every member has 0 <= k <= n.
RANGE = """
let score (input, (out : D[[0,1]])) =
  let (db, a, b) = input in
  let (ar, br) = getParams out in
  if ar <= BASE + HIGH && ar >= BASE + LOW then 0.0 - abs (BASE + count db - ar)
  else 100.0 * count db

val main :: {l :: bool list | adj (l<1>, l<2>)} -> {a :: real+ | =} -> {b :: real+ | =}
         -> {eps :: real+ | =} -> M[DP(eps)] {d :: D[[0,1]] | =}
let main db a b eps =
  expMech (eps, score, (db, a, b), posteriors (PRIOR, length db))
"""


def verify(text: str, name: str = "test.pinf"):
    program = parse_program(text, name)
    return program, verify_program(program, typecheck_program(program))


def claim(report, name: str = "main"):
    return next(c for c in report.claims if c.name == name)


def l1_text(bound: str) -> str:
    return L1.read_text().replace("M[DP(2.0 * eps)]", f"M[DP({bound} * eps)]")


def cert_of(program, report) -> dict:
    return json.loads(dumps(certificate(report, program.source, program.file)))


# ---- the l1 output perturbation -----------------------------------------------------------------

def test_the_l1_output_perturbation_is_verified_with_the_guarantee_its_header_states():
    expectation = parse_expectation(L1.read_text())
    assert expectation.verdict == "verified"
    assert expectation.guarantees == {"main": GUARANTEE_2EPS}
    program = parse_file(str(L1))
    report = verify_program(program, typecheck_program(program))
    assert [(c.name, c.verdict) for c in report.claims] == [("learnBias", "verified"),
                                                            ("main", "verified")]
    assert claim(report).guarantee == GUARANTEE_2EPS


def test_the_l1_mechanism_claimed_at_one_and_a_half_eps_is_rejected_and_is_false(tmp_path):
    program, report = verify(l1_text("1.5"))
    main = claim(report)
    assert main.verdict == "refuted" and main.confirmation.method == "exact audit"
    assert "Budget" in main.failure
    path = tmp_path / "l1_15.pinf"
    path.write_text(l1_text("1.5"))
    audit = audit_program(str(path), "main", 4, ["a=1.0", "b=1.0", "eps=0.1"])
    assert audit.precision == "exact"
    assert audit.loss_lower > 0.155 > 0.15          # the exact loss exceeds 1.5 * eps = 0.15
    assert audit.exceeds_claim and not audit.soundness_bug


def test_the_exact_loss_of_the_l1_mechanism_approaches_two_eps():
    """The l1 score is -2 |c - k| (c the true count): the bound 2 eps is tight in the limit,
    so no constant below 2 would be a true claim."""
    def loss(n: int, eps: float, counts) -> float:
        log_z = {c: math.log(sum(math.exp(-eps * abs(c - k)) for k in range(n + 1)))
                 for c in range(n + 1)}
        return max(eps * (abs(y - k) - abs(x - k)) + log_z[y] - log_z[x]
                   for c in counts for x, y in ((c, c + 1), (c + 1, c)) for k in range(n + 1))
    assert 1.55 < loss(4, 0.1, range(4)) / 0.1 < 2
    assert 1.99 < loss(2000, 0.001, [0]) / 0.001 <= 2      # at the boundary pair (0, 1)


def test_the_audit_agrees_with_the_verified_l1_claim():
    audit = audit_program(str(L1), "main", 5, ["a=1.0", "b=1.0", "eps=1.0"])
    assert audit.claim.verifier == "verified"
    assert 1.2 < audit.loss < 2 and not audit.exceeds_claim and not audit.soundness_bug


def test_the_dirichlet_l1_mechanism_is_2_eps_and_not_1_5_eps():
    _, report = verify(DIRICHLET_L1.replace("BOUND", "2.0"))
    assert claim(report).verdict == "verified"
    assert claim(report).guarantee == GUARANTEE_2EPS
    _, report = verify(DIRICHLET_L1.replace("BOUND", "1.5"))
    assert claim(report).verdict == "refuted"
    assert claim(report).confirmation.method == "exact audit"


# ---- the member facts are exactly right -------------------------------------------------------

@pytest.mark.parametrize("prior, base", [("beta (a, b)", "a"), ("uniform ()", "1.0")])
def test_every_member_has_a_count_between_0_and_n(prior, base):
    _, report = verify(RANGE.replace("HIGH", "length db").replace("LOW", "0.0")
                       .replace("PRIOR", prior).replace("BASE", base))
    assert claim(report).verdict == "verified", claim(report).failure


@pytest.mark.parametrize("high, low, k", [("length db - 1", "0.0", "n"),
                                          ("length db", "1.0", "0")])
def test_the_members_with_k_0_and_k_n_are_not_forgotten(high, low, k):
    """Excluding the member k = n (or k = 0) from the 1-sensitive branch makes the claim false;
    the verifier refutes it with that very member."""
    _, report = verify(RANGE.replace("HIGH", high).replace("LOW", low)
                       .replace("PRIOR", "beta (a, b)").replace("BASE", "a"))
    main = claim(report)
    assert main.verdict == "refuted" and main.confirmation.method == "exact loss"
    [ob] = [ob for ob in main.obligations if main.results[ob.id].verdict.value == "refuted"]
    model = {b.name: b.value for b in main.results[ob.id].counterexample}
    n = str(model["db<1>"].count(";") + 1)   # the length of the concrete list db<1>
    assert model["k"] == (n if k == "n" else "0")


def test_the_range_conditions_of_a_score_use_the_member_facts():
    """``beta (ar, br)`` in the score needs ar, br > 0: the Safety judgement proves it from
    a, b > 0 and 0 <= k <= n."""
    _, report = verify("""
let score (input, (out : D[[0,1]])) =
  let (db, a, b) = input in
  let (ar, br) = getParams out in
  0.0 - hellinger (beta (a + count db, b + length db - count db), beta (ar, br))

val main :: {l :: bool list | adj (l<1>, l<2>)} -> {a :: real+ | a<1> = a<2> /\\ a<1> >= 1.0}
         -> {b :: real+ | b<1> = b<2> /\\ b<1> >= 1.0}
         -> {eps :: real+ | =} -> M[DP(sqrt (1.0 - pi / 4.0) * eps)] {d :: D[[0,1]] | =}
let main db a b eps = expMech (eps, score, (db, a, b), posteriors (beta (a, b), length db))
""")
    main = claim(report)
    assert main.verdict == "verified", main.failure
    goals = {T.pretty(ob.goal) for ob in main.obligations if ob.kind.value == "range"}
    assert {"r_p1 > 0.0", "r_p2 > 0.0"} <= goals


def test_the_output_of_the_mechanism_keeps_its_form():
    _, report = verify("""
let score (input, (out : D[[0,1]])) =
  let (db, a, b) = input in
  let (ar, br) = getParams out in
  0.0 - abs (a + count db - ar)

val main :: {l :: bool list | adj (l<1>, l<2>)} -> {a :: real+ | =} -> {b :: real+ | =}
         -> {eps :: real+ | =} -> M[DP(eps)] {m :: real | =}
let main db a b eps =
  mlet d = expMech (eps, score, (db, a, b), posteriors (beta (a, b), length db)) in
  return (mean d)
""")
    assert claim(report).verdict == "verified", claim(report).failure


@pytest.mark.parametrize("candidates", [
    "[beta (a, b); beta (1.0, 1.0)]",     # a list of Betas, but not posteriors (...)
    "posteriors (prior, length db)",      # a prior of unknown family
])
def test_other_candidate_lists_stay_opaque(candidates):
    _, report = verify(f"""
let score (input, (out : D[[0,1]])) =
  let (db, a, b) = input in
  let (ar, br) = getParams out in
  0.0 - abs (a + count db - ar)

val main :: {{l :: bool list | adj (l<1>, l<2>)}} -> {{a :: real+ | =}} -> {{b :: real+ | =}}
         -> {{prior :: D[[0,1]] | =}} -> {{eps :: real+ | =}} -> M[DP(eps)] {{d :: D[[0,1]] | =}}
let main db a b (prior : D[[0,1]]) eps = expMech (eps, score, (db, a, b), {candidates})
""")
    main = claim(report)
    # the score moves by at most 1 (count db does), so the claim is true: not proved, since
    # the candidate's family is not known here, and not refuted
    assert main.verdict == "unknown"
    assert "the distribution's family is not known here" in main.failure


def test_conjugate_reads_only_posteriors_of_a_beta_or_dirichlet_constructor():
    a, b, n = T.var("a", T.REAL), T.var("b", T.REAL), T.var("n", T.INT)
    beta = conjugate(V.posteriors_list(V.dist_ctor("beta", (a, b)), n))
    assert (beta.family, beta.prior, beta.n, beta.lemma) == ("beta", (a, b), n,
                                                            "posteriors.members.beta")
    d3 = conjugate(V.posteriors_list(V.dist_ctor("dirichlet", (a, b, a)), n))
    assert (d3.family, d3.arity, d3.lemma) == ("dirichlet", 3, "posteriors.members.dirichlet/k=3")
    assert conjugate(V.posteriors_list(V.dist_ctor("normal", (a, b)), n)) is None
    assert conjugate(V.posteriors_list(V.dist_ctor("dirichlet", (a,) * 64), n)).arity == 64
    assert conjugate(V.posteriors_list(V.dist_ctor("dirichlet", (a,) * 65), n)) is None
    assert conjugate(V.posteriors_list(T.var("p", V.DIST), n)) is None
    assert conjugate(T.var("l", V.list_sort("dist"))) is None


# ---- the Hellinger examples are unchanged --------------------------------------------------------

HELLINGER_GUARANTEES = {
    "paper/beta_output_hellinger.pinf":
        "main is (rho * eps, 0)-differentially private with respect to adj on its 1st argument, "
        "for a >= 1.0 and b >= 1.0",
    "paper/beta_output_sd.pinf":
        "main is (zeta * eps, 0)-differentially private with respect to adj on its 1st argument, "
        "for a >= 1.0 and b >= 1.0",
    "paper/dirichlet_output_hellinger.pinf":
        "main is (rho * eps, 0)-differentially private with respect to adj on its 1st argument, "
        "for a1 >= 1.0 and a2 >= 1.0 and a3 >= 1.0",
}


@pytest.mark.parametrize("rel", sorted(HELLINGER_GUARANTEES))
def test_a_distance_score_gets_the_obligations_of_an_opaque_candidate(rel):
    """The candidate's facts mention its counts, which a distance to the candidate does not:
    they join no obligation, which stay those of an opaque candidate (and as fast)."""
    program = parse_file(str(PROGRAMS / rel))
    report = verify_program(program, typecheck_program(program))
    main = claim(report)
    assert main.verdict == "verified" and main.guarantee == HELLINGER_GUARANTEES[rel]
    assert not [h.name for ob in main.obligations for h in ob.hypotheses
                if h.name.startswith("h_candidate")]


@pytest.mark.parametrize("rel, verdict", [
    # false at a = b = 0.05 (docs/audit.md), where only float Hellinger scores are known
    ("negative/beta_hellinger_small_prior.pinf", "unknown"),
    # two candidate lists: an output of one run is impossible in the other
    ("negative/expmech_private_candidates.pinf", "refuted")])
def test_the_negative_expmech_examples_are_not_verified(rel, verdict):
    program = parse_file(str(PROGRAMS / rel))
    main = claim(verify_program(program, typecheck_program(program)))
    assert main.verdict == verdict, main.failure
    assert "Budget" in main.failure or "candidates of expMech" in main.failure


# ---- certificates ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def l1_cert():
    program = parse_file(str(L1.relative_to(ROOT)))
    return cert_of(program, verify_program(program, typecheck_program(program)))


def hypotheses(outcome) -> set:
    return {T.pretty(h.term) for ob in outcome.obligations for h in ob.hypotheses
            if h.name.startswith("h_candidate")}


def test_the_certificate_checks_and_the_kernel_draws_the_members_itself(l1_cert):
    """The certificate names no draw: the kernel draws the candidate from the list it
    translates, with the member facts of the lemma it then cites."""
    assert all(set(n) == {"id", "rule", "at", "premises"} for n in l1_cert["nodes"])
    outcome = kernel.check(copy.deepcopy(l1_cert))
    assert outcome.valid, outcome.reason
    assert [c["verdict"] for c in outcome.claims] == ["verified", "verified"]
    assert {"id": "posteriors.members.beta", "status": "proved"} in outcome.trust_base["lemmas"]
    facts = hypotheses(outcome)
    assert "k >= 0" in facts and "k <= length db<1>" in facts
    assert "r = beta (r_p1, r_p2)" in facts


def test_the_certificate_of_a_dirichlet_member_checks():
    program, report = verify(DIRICHLET_L1.replace("BOUND", "2.0"))
    outcome = kernel.check(cert_of(program, report))
    assert outcome.valid, outcome.reason
    assert {"id": "posteriors.members.dirichlet/k=3", "status": "proved"} in \
        outcome.trust_base["lemmas"]


def test_a_finite_range_draw_is_made_from_the_calls_type():
    program, report = verify("""
let score (input, (r : [3] * bool)) =
  let (c, b) = r in
  if b then (if c = 2 then count input else 0) else 0

val pick :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {d :: [3] * bool | =}
let pick db eps = expMech (eps, score, db)
""")
    assert claim(report, "pick").verdict == "verified"
    outcome = kernel.check(cert_of(program, report))
    assert outcome.valid, outcome.reason
    assert {"r1 >= 0", "r1 < 3"} <= hypotheses(outcome)


def test_a_verifier_assuming_more_of_the_candidate_is_caught(monkeypatch):
    """A verifier that assumed more of the candidate (that the list it is drawn from is
    ``posteriors (P, n)`` with n <= 0) verifies the l1 mechanism at 1.5 eps, which is false;
    the kernel draws the candidate itself, with the lemma's facts only, and refuses the
    certificate."""
    real = mechanism_rules.posterior_member

    def wishful(b, candidates):
        drawn = real(b, candidates)
        if drawn is not None:
            value, facts, draw = drawn
            k = draw["counts"][0]
            n = conjugate(candidates).n
            facts = [T.le(n, 0) if f == T.le(k, n) else f for f in facts]
            drawn = value, facts, draw
        return drawn

    with monkeypatch.context() as patch:
        patch.setattr(mechanism_rules, "posterior_member", wishful)
        program, report = verify(l1_text("1.5"))
        cert = cert_of(program, report)
    assert claim(report).verdict == "verified", "the wishful fact no longer fools the builder"
    outcome = kernel.check(cert)
    assert not outcome.valid and "privacy cost" in outcome.reason, outcome.reason


# ---- the lemma -------------------------------------------------------------------------------

@pytest.mark.parametrize("lemma_id", ["posteriors.members.beta", "posteriors.members.dirichlet/k=2",
                                      "posteriors.members.dirichlet/k=3",
                                      "posteriors.members.dirichlet/k=5"])
def test_the_members_lemma_re_checks(lemma_id):
    lem = lemmas.get(lemma_id)
    assert lem.status == "proved"
    assert check_lemma(lem).ok
    assert recheck(lem.artifact).ok


def test_the_members_lemma_is_listed_and_checked_by_the_cli():
    from verifier.cli import main
    assert "posteriors.members.beta" in lemmas.ids()
    assert main(["lemmas", "--check", "--id", "posteriors.members.beta"]) == 0
    assert main(["lemmas", "--check", "--id", "posteriors.members.dirichlet/k=4"]) == 0


def test_a_stronger_members_statement_does_not_re_check():
    """The artifact is not vacuous: with k <= n - 1 (forgetting the last member) or a shifted
    parameter, the same proof fails."""
    import sympy as sp
    from lemmas import exprs
    from lemmas.core import ArtifactBuilder, eq, params, symbols
    F = exprs.function
    P = params(("a", "pos"), ("b", "pos"), ("n", "nat"), ("r", "dist"))
    S = symbols(P)
    a, b, n, r = S["a"], S["b"], S["n"], S["r"]
    lst = F("Posteriors")(exprs.BetaDist(a, b), n)
    k = F("IndexOf")(r, lst)
    for wrong in (sp.Le(k, n - 1), eq(r, exprs.BetaDist(a + k + 1, b + n - k))):
        bld = ArtifactBuilder("wrong", "proved", P, (F("Member")(r, lst),), wrong)
        member, definition = bld.fact("lists.member"), bld.fact("posteriors.beta.definition")
        bld.qed([bld.ref(member, x=r, l=lst), bld.ref(definition, a=a, b=b, n=n, i=k)])
        assert not recheck(bld.build()).ok


@pytest.mark.parametrize("a, b, n", [(Fraction(1, 2), Fraction(3), 0), (Fraction(1), Fraction(1), 1),
                                     (Fraction(5, 2), Fraction(1, 20), 7)])
def test_numerically_every_beta_member_is_a_plus_k_b_plus_n_minus_k(a, b, n):
    for listing in (exact_posteriors(Beta(a, b), n),
                    sem_dist.posteriors(sem_dist.Beta(a, b), n, 10_000)):
        assert len(listing) == n + 1
        for position, member in enumerate(listing):
            k = position                                   # IndexOf(r, posteriors (...)) = k
            assert 0 <= k <= n
            assert (Fraction(member.a), Fraction(member.b)) == (a + k, b + n - k)


@pytest.mark.parametrize("alphas, n", [((Fraction(1), Fraction(2)), 3),
                                       ((Fraction(1, 2), Fraction(1), Fraction(3, 2)), 4),
                                       ((Fraction(1),) * 4, 3)])
def test_numerically_every_dirichlet_member_is_a_plus_counts(alphas, n):
    for listing in (exact_posteriors(Dirichlet(list(alphas)), n),
                    sem_dist.posteriors(sem_dist.Dirichlet(alphas), n, 10_000)):
        assert len(listing) == count_posteriors(Dirichlet(list(alphas)), n)
        counts = set()
        for member in listing:
            c = tuple(Fraction(x) - y for x, y in zip(member.alphas, alphas))
            assert all(x.denominator == 1 and x >= 0 for x in c) and sum(c) == n
            counts.add(c)
        assert len(counts) == len(listing)                 # every count vector once
