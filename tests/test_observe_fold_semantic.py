"""Observe-folds recognised by what they mean, not how they are spelt (issue 26): a likelihood
written through a named helper (applied in full, partially, or bound to a ``fun``) is read
through its definition, and a learner whose ``[]`` case builds the prior from parameters
passed along unchanged is a fold. Both the builder and the kernel recognise them (each its
own recogniser over the shared unfolding); false claims stay unproved; a builder that takes
the wrong prior is caught by the kernel; ``run`` computes the posterior the proof is about.
"""
from __future__ import annotations

import pytest

from verifier.language import ast as A
from verifier.language.parser import parse_program
from verifier.language.resolve import resolve
from verifier.language.unfold import unfold_function
from verifier.rules import observe_fold
from verifier.rules.observe_fold import FoldSpec, fold_shape
from verifier.semantics.evaluator import Evaluator
from verifier.semantics.values import list_of
from verifier.verification import VERIFIED
from verify_helpers import claims_and_certificate, kernel_refuses
from checker import kernel

HELPERS = """
let obs d r = mlet z = ran (bernoulli r) in return (d = z)
let obs2 r d = obs d r
let lam = fun r -> mlet z = ran (bernoulli r) in return (true = z)
"""

LEARNER = HELPERS + """
let rec learn xs p = match xs with
  | [] -> p
  | y :: ys -> observe LIK (learn ys p)

val post :: {xs :: bool list | adj (xs<1>, xs<2>)} -> {d :: D[[0,1]] | CLAIM}
let post xs = infer (learn xs (ran (beta (3.0, 1.0))))
"""

HD = "Delta[HD] (d<1>, d<2>) <= 1.0 - pi / 4.0"


@pytest.mark.parametrize("lik", ["(fun q -> obs y q)", "(obs y)", "(fun q -> obs2 q y)"])
def test_named_likelihoods_are_read_through_their_definitions(lik):
    claims, cert = claims_and_certificate(LEARNER.replace("LIK", lik).replace("CLAIM", HD))
    assert claims["post"].verdict == VERIFIED, claims["post"].failure
    assert kernel.check(cert).valid
    # the same learner, claimed equal on adjacent data: false
    claims, _ = claims_and_certificate(LEARNER.replace("LIK", lik).replace("CLAIM", "="))
    assert claims["post"].verdict != VERIFIED


@pytest.mark.parametrize("lik, why", [
    ("(fun q -> obs true q)", "likelihood"),        # observes a constant, not the datum
    ("lam", "likelihood"),                           # likewise, a helper bound to a fun
    ("(fun q -> obs (not y) q)", "likelihood"),      # an argument that is not a name
])
def test_helpers_that_do_not_observe_the_datum_are_not_folds(lik, why):
    claims, _ = claims_and_certificate(LEARNER.replace("LIK", lik).replace("CLAIM", HD))
    assert claims["post"].verdict != VERIFIED
    assert why in claims["post"].failure


def test_unfolding_substitutes_the_arguments_and_keeps_the_rest():
    program = resolve(parse_program(HELPERS + "let f y = obs2 y\n", "u.pinf"))
    lets = {d.name: d for d in program.lets()}
    f = program.lets()[-1]
    unfolded = unfold_function(f.body, lets.get)
    # obs2 y = fun d -> obs d y  (the last parameter kept), then obs d y unfolded
    assert isinstance(unfolded, A.Fun)
    assert isinstance(unfolded.body, A.MLet)
    # a recursive helper or an argument that is not a name is left alone
    assert unfold_function(A.Var("nothing"), lets.get) == A.Var("nothing")


NIL_PRIOR = """
let rec fit xs a b = match xs with
  | [] -> ran (beta (a, b))
  | y :: ys -> observe (fun q -> mlet w = ran (bernoulli q) in return (y = w)) (fit ys a b)

val post :: {xs :: bool list | adj (xs<1>, xs<2>)} -> {d :: D[[0,1]] | Delta[HD] (d<1>, d<2>) <= 1.0 - pi / 4.0}
let post xs = infer (fit xs A B)
"""


@pytest.mark.parametrize("a, b, verified", [("1.0", "2.0", True), ("0.05", "0.05", False)])
def test_a_prior_built_in_the_nil_case(a, b, verified):
    claims, cert = claims_and_certificate(NIL_PRIOR.replace("A B", f"{a} {b}"))
    assert (claims["post"].verdict == VERIFIED) == verified, claims["post"].failure
    if verified:
        assert kernel.check(cert).valid


@pytest.mark.parametrize("nil", ["ran (beta (1.0 + count xs, 1.0))", "ran (beta (a, b)) "])
def test_a_nil_case_that_reads_the_data_or_a_changing_parameter_is_not_a_fold(nil):
    text = NIL_PRIOR.replace("ran (beta (a, b))", nil)
    if nil.endswith(" "):  # the recursive call changes a: the prior moves along the recursion
        text = text.replace("(fit ys a b)", "(fit ys (a + 1.0) b)")
    program = resolve(parse_program(text, "n.pinf"))
    decl = next(d for d in program.lets() if d.recursive)
    assert not isinstance(fold_shape(decl), FoldSpec)


def test_the_kernel_refuses_a_builder_that_takes_another_prior(monkeypatch):
    """The builder, patched to read the [] case's prior as beta (2, 2), verifies the bound
    for the prior beta (0.05, 0.05) (false: NOTES.md §1); the kernel recognises the fold
    itself and refuses."""
    text = NIL_PRIOR.replace("A B", "0.05 0.05")
    real = observe_fold.fold_shape

    def bug(patch):
        def wrong(decl, lets=observe_fold._no_lets):
            spec = real(decl, lets)
            if isinstance(spec, FoldSpec) and spec.nil_prior is not None:
                fixed = parse_program("let x = ran (beta (2.0, 2.0))", "p.pinf").lets()[0].body
                spec = FoldSpec(spec.name, spec.params, spec.data, None, spec.family,
                                spec.variance, False, fixed)
            return spec
        patch.setattr(observe_fold, "fold_shape", wrong)

    kernel_refuses(monkeypatch, text, "post", bug, "Sub")


def test_run_computes_the_posterior_of_the_prior_built_in_the_nil_case():
    program = parse_program(NIL_PRIOR.replace("A B", "1.0 2.0"), "r.pinf")
    value = Evaluator(program).call("post", [list_of([True, False, True])])
    assert value.format() == "beta(3.0, 3.0)"


def test_a_normal_learner_with_its_prior_in_the_nil_case():
    """A known variance with no prior parameter (found by privinfer fuzz: the recogniser
    indexed the missing prior parameter): the posterior mean of [0,1] data under N(0, 1) with
    variance 1/2 stays below 1, which both the builder and the kernel prove."""
    text = """
val learn :: {l :: real list | =} -> M[SD] {x :: real | =}
let rec learn (l : real list) = match l with
  | [] -> ran (normal (0.0, 1.0))
  | d :: ds -> observe (fun r -> mlet z = ran (normal (r, 0.5)) in return (d = z)) (learn ds)

val main :: {l :: [0,1] list | adjWithin (l<1>, l<2>, 1.0)} -> M[SD] {r :: bool | =}
let main db = return (mean (infer (learn db)) > 1.0)
"""
    claims, cert = claims_and_certificate(text)
    assert claims["main"].verdict == VERIFIED, claims["main"].failure
    assert kernel.check(cert).valid
    claims, _ = claims_and_certificate(text.replace("> 1.0", "> 0.5"))
    assert claims["main"].verdict != VERIFIED
