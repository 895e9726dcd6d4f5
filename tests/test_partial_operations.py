"""Every partial operation is a Safety obligation (issue 15, item 2).

For each operation that ``privinfer run`` can refuse at run time — division by zero, ``log`` of
a non-positive number, ``sqrt`` of a negative one, a distribution parameter out of range,
``sigma`` outside its domain, a mechanism's epsilon or delta, ``posteriors`` of a prior that is
not conjugate, a distance between laws whose family is unknown — a program that may perform it
is rejected by the verifier (naming the condition), the same program with the condition
guaranteed is verified, and ``run`` on a violating input stops with a clean error (exit 2,
never an internal error).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from verifier.cli import main
from verify_helpers import claims_and_certificate

HEAD = "val f :: {x :: TYPE | REFINE} -> M[DP(1.0)] {r :: RESULT | =}\nlet f x = BODY\n"

#: (name, body, result type, the condition's words, a type where it fails, one where it holds,
#:  an argument that violates it)
CASES = [
    ("division", "return (1.0 / x)", "real", "divisor is not zero", "real", "real+", "0.0"),
    ("log", "return (log x)", "real", "argument of log is positive", "real", "real+", "0.0"),
    ("sqrt", "return (sqrt x)", "real", "argument of sqrt is non-negative", "real", "real+",
     "0.0 - 1.0"),
    ("beta", "ran (beta (x, 1.0))", "real", "1st parameter of beta is positive", "real", "real+",
     "0.0"),
    ("bernoulli", "ran (bernoulli x)", "bool", "parameter of bernoulli is in [0,1]", "real",
     "[0,1]", "1.5"),
    ("normal", "ran (normal (0.0, x))", "real", "variance of normal is positive", "real",
     "real+", "0.0"),
    ("dirichlet", "ran (dirichlet (1.0, x))", "[0,1]^2", "parameter 2 of dirichlet is positive",
     "real", "real+", "0.0"),
    ("sigma", "return (sigma (1.0, x))", "real", "delta of sigma is in (0, 1.25)", "real+",
     "[0,1]", "2.0"),
    ("lapMech", "lapMech (x, 1.0)", "real", "epsilon of lapMech is positive", "real", "real+",
     "0.0"),
    ("gaussMech", "gaussMech (0.5, x, 1.0)", "real", "delta of gaussMech is positive", "real",
     "real+", "0.0"),
    ("expMech", "expMech (x, fun (a, r) -> if r then 1.0 else 0.0, ())", "bool",
     "epsilon of expMech is positive", "real", "real+", "0.0"),
    ("hellingerMech", "hellingerMech (1.0, x, beta (1.0, 1.0), [true; false])", "D[[0,1]]",
     "delta of hellingerMech is in (0, 1)", "real+", "[0,1]", "1.0"),
]
# [0,1] includes 0: the delta of sigma and of hellingerMech must also be > 0
HOLDS_GUARD = {"sigma": "x<1> > 0.0", "hellingerMech": "x<1> > 0.0 /\\ x<1> < 1.0"}


def program(body: str, result: str, typ: str, guard: str = "") -> str:
    """The claim ``f :: {x :: typ | x equal in both runs [and guard]} -> M[DP(1.0)] ...``."""
    refine = "x<1> = x<2> /\\ " + guard if guard else "="
    return (HEAD.replace("TYPE", typ).replace("REFINE", refine).replace("RESULT", result)
            .replace("BODY", body))


@pytest.mark.parametrize("name, body, result, words, fails, holds, bad", CASES,
                         ids=[c[0] for c in CASES])
def test_each_partial_operation_is_a_range_obligation(tmp_path, capsys, name, body, result, words,
                                                      fails, holds, bad):
    rejected, _ = claims_and_certificate(program(body, result, fails))
    assert rejected["f"].verdict != "verified"
    assert words in rejected["f"].failure and "[Range]" in rejected["f"].failure
    verified, _ = claims_and_certificate(program(body, result, holds, HOLDS_GUARD.get(name, "")))
    assert verified["f"].verdict == "verified", verified["f"].failure
    # the unverified program on a violating input: a clean run-time error
    path = tmp_path / "p.pinf"
    path.write_text(program(body, result, "real"))
    code = main(["run", str(path), "f", "--arg", f"x={bad}", "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "error[R0" in err and "internal error" not in err, err


POSTERIORS = """
val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: D[real] | =}
let main db eps = expMech (eps, fun (x, r) -> 0.0 - hellinger (r, PRIOR), (),
                           posteriors (PRIOR, length db))
"""
LITERAL_CANDIDATES = """
val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: D[real] | =}
let main db eps = expMech (eps, fun (x, r) -> 0.0 - hellinger (r, beta (1.0, 1.0)), (),
                           [CANDIDATES])
"""


def test_posteriors_of_a_prior_that_is_not_conjugate_is_rejected(tmp_path, capsys):
    claims, _ = claims_and_certificate(POSTERIORS.replace("PRIOR", "normal (0.0, 1.0)"))
    assert claims["main"].verdict != "verified"
    assert "prior of posteriors is a beta, uniform or dirichlet" in claims["main"].failure
    claims, _ = claims_and_certificate(POSTERIORS.replace("PRIOR", "beta (1.0, 1.0)"))
    assert claims["main"].verdict == "verified", claims["main"].failure
    path = tmp_path / "p.pinf"
    path.write_text(POSTERIORS.replace("PRIOR", "normal (0.0, 1.0)"))
    assert main(["run", str(path), "main", "--arg", "db=[true]", "--arg", "eps=1.0"]) == 2
    assert "error[R006]" in capsys.readouterr().err


def test_a_distance_to_a_law_of_unknown_family_is_rejected():
    """A candidate drawn from a literal list has no known family: the list might mix a normal
    with the beta it is compared with, which run cannot compute."""
    mixed = LITERAL_CANDIDATES.replace("CANDIDATES", "normal (0.0, 1.0); beta (2.0, 1.0)")
    claims, _ = claims_and_certificate(mixed)
    assert claims["main"].verdict != "verified"
    assert "argument of hellinger is of the same family" in claims["main"].failure
    # a list of betas: the candidate is a beta (its parameters unknown), so run computes it
    betas = LITERAL_CANDIDATES.replace("CANDIDATES", "beta (1.0, 1.0); beta (2.0, 1.0)")
    claims, cert = claims_and_certificate(betas)
    assert claims["main"].verdict == "verified", claims["main"].failure
    from checker import kernel
    assert kernel.check(cert).valid


def test_hellinger_mechanisms_with_eps_and_delta_beyond_floats_run(tmp_path, capsys):
    text = """
val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1e-400), 1e-400] {r :: D[[0,1]] | =}
let main db = hellingerMech (1e-400, 1e-400, beta (1.0, 1.0), db)
let big db = hellingerMech (1e400, 0.5, beta (1.0, 1.0), db)
"""
    claims, _ = claims_and_certificate(text)
    assert claims["main"].verdict == "verified"
    path = tmp_path / "p.pinf"
    path.write_text(text)
    for entry in ("main", "big"):
        assert main(["run", str(path), entry, "--arg", "db=[true; false]", "--seed", "1"]) == 0
        out, err = capsys.readouterr()
        assert out.startswith("beta(") and "error" not in err


#: Places where pure code makes a computation without running it. Call by value makes part of
#: the computation at once (a mechanism's parameters are checked, a ``return``'s value is
#: computed, an ``mlet``'s first computation is made), so its range conditions are obligations
#: there too, whether or not it ever runs.
MADE_NOT_RUN = {
    "let": "let unused = BODY in return 0.0",
    "tuple": "let unused = (BODY, 1) in return 0.0",
    "argument": "let ignore = fun u -> 0.0 in let v = ignore (BODY) in return v",
    "inside mlet": "let unused = (mlet y = BODY in return y) in return 0.0",
    "helper": "let make = fun u -> BODY in let unused = make () in return 0.0",
}


@pytest.mark.parametrize("place", sorted(MADE_NOT_RUN))
@pytest.mark.parametrize("name, body, result, words, fails, holds, bad", CASES,
                         ids=[c[0] for c in CASES])
def test_a_computation_made_but_never_run_meets_its_range_conditions(
        tmp_path, capsys, place, name, body, result, words, fails, holds, bad):
    made = MADE_NOT_RUN[place].replace("BODY", f"({body})")
    rejected, _ = claims_and_certificate(program(made, "real", fails))
    assert rejected["f"].verdict != "verified"
    assert words in rejected["f"].failure and "[Range]" in rejected["f"].failure
    verified, _ = claims_and_certificate(program(made, "real", holds, HOLDS_GUARD.get(name, "")))
    assert verified["f"].verdict == "verified", verified["f"].failure
    path = tmp_path / "p.pinf"
    path.write_text(program(made, "real", "real"))
    code = main(["run", str(path), "f", "--arg", f"x={bad}", "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "error[R0" in err and "internal error" not in err, err


STORED_VAL_CALL = """
val f :: {n :: int | n<1> = n<2> /\\ n<1> >= 3} -> M[DP(0.0)] {r :: real | =}
let f n = return (1.0 / (n - 2))

val main :: {k :: int | =} -> M[DP(0.0)] {r :: real | =}
let main k = let unused = f ARG in return 0.0
"""


@pytest.mark.parametrize("arg, verified", [("k", False), ("(if k >= 3 then k else 3)", True)])
def test_a_stored_call_of_a_val_is_in_its_domain(arg, verified):
    """Calling ``f`` runs its body up to the computation it returns, stored or not: on 2 it
    divides by zero, so a call that may be outside ``f``'s domain is not verified."""
    claims, _ = claims_and_certificate(STORED_VAL_CALL.replace("ARG", arg))
    assert claims["f"].verdict == "verified"
    assert (claims["main"].verdict == "verified") is verified, claims["main"].failure

