"""Parameters of function type (issue #26, docs/verifier.md "Higher order"): App-Val of a
function parameter against its type, S-Fun at the call sites of a val that takes one, Safety
and Decidable of parameter calls; the kernel re-derives all of it (and refuses a builder that
skips a subtyping obligation, or takes the two runs' functions as equal)."""
from __future__ import annotations

from pathlib import Path

import pytest

from checker import kernel
from verifier.verification import VERIFIED
from verify_helpers import claims_and_certificate, kernel_refuses

PROGRAMS = Path(__file__).resolve().parent.parent / "benchmarks" / "programs"

TWICE = """
val twice :: {e :: real+ | =} -> ({d :: bool list | adj (d<1>, d<2>)} -> M[DP(e)] {r :: real | =})
          -> {db :: bool list | adj (db<1>, db<2>)} -> M[DP(2.0 * e)] {r :: real list | =}
let twice e m db = mlet a = m db in mlet b = m db in return [a; b]

val noisyCount :: {e :: real+ | =} -> {d :: bool list | adj (d<1>, d<2>)} -> M[DP(e)] {r :: real | =}
let noisyCount e d = lapMech (e, count d)

val main :: {e :: real+ | =} -> {db :: bool list | adj (db<1>, db<2>)} -> M[DP(2.0 * e)] {r :: real list | =}
let main e db = twice e ARG db
"""
OK = TWICE.replace("ARG", "(noisyCount e)")


def verdicts(text: str):
    """Each claim's verdict and reason, after the kernel accepted the certificate."""
    claims, cert = claims_and_certificate(text)
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason
    return {name: (c.verdict, c.failure or "") for name, c in claims.items()}


def verdict(text: str, name: str) -> str:
    return verdicts(text)[name][0]


# ---- what verifies --------------------------------------------------------------------------

@pytest.mark.parametrize("file", ["classic/higher_order_twice.pinf",
                                  "classic/higher_order_fun_argument.pinf",
                                  "classic/higher_order_repeat.pinf"])
def test_the_classic_programs_verify_and_the_kernel_accepts_them(file):
    got = verdicts((PROGRAMS / file).read_text())
    assert all(v == VERIFIED for v, _ in got.values()), got


@pytest.mark.parametrize("file", ["mistakes/higher_order_three_calls.pinf",
                                  "mistakes/higher_order_argument_costs_more.pinf",
                                  "mistakes/higher_order_domain_too_strong.pinf",
                                  "mistakes/higher_order_fun_captures_data.pinf",
                                  "unsound/higher_order_functions_assumed_equal.pinf"])
def test_the_mistakes_are_not_verified(file):
    got = verdicts((PROGRAMS / file).read_text())
    assert any(v != VERIFIED for v, _ in got.values()), got


NAMED = """
val twice :: {e :: real+ | =} -> ({d :: bool list | adj (d<1>, d<2>)} -> M[DP(e)] {r :: real | =})
          -> {db :: bool list | adj (db<1>, db<2>)} -> M[DP(2.0 * e)] {r :: real list | =}
let twice e m db = mlet a = m db in mlet b = m db in return [a; b]

val noisyCount :: {d :: bool list | adj (d<1>, d<2>)} -> M[DP(1.0)] {r :: real | =}
let noisyCount d = lapMech (1.0, count d)

val main :: {e :: real+ | =} -> {db :: bool list | adj (db<1>, db<2>)} -> M[DP(2.0 * E)] {r :: real list | =}
let main e db = twice E noisyCount db
"""


def test_a_named_function_passed_whole():
    assert verdict(NAMED.replace("E", "1.0"), "main") == VERIFIED
    # e is not known to be at least 1.0: noisyCount costs 1.0, more than e allows
    got = verdicts(NAMED.replace("E", "e"))
    assert got["main"][0] != VERIFIED and "costs at most" in got["main"][1], got


def test_a_stored_call_is_charged_where_it_runs():
    stored = OK.replace("mlet a = m db in mlet b = m db in",
                        "let c = m db in mlet a = c in mlet b = c in")
    assert verdict(stored, "twice") == VERIFIED
    once = stored.replace("M[DP(2.0 * e)] {r :: real list | =}\nlet twice",
                          "M[DP(e)] {r :: real list | =}\nlet twice")
    assert verdict(once, "twice") != VERIFIED


def test_a_helper_without_a_val_that_calls_the_parameter_is_unfolded():
    text = OK.replace("let twice e m db = mlet a = m db in",
                      "let twice e m db = let go f x = f x in mlet a = go m db in")
    assert verdict(text, "twice") == VERIFIED
    assert verdict(text.replace("M[DP(2.0 * e)] {r :: real list | =}\nlet twice",
                                "M[DP(e)] {r :: real list | =}\nlet twice"), "twice") != VERIFIED


DISTANT = """
val twice :: {e :: real+ | =} -> ({d :: bool list | adj (d<1>, d<2>)} -> M[DP(e)] {r :: real | =})
          -> {db :: bool list | adj (db<1>, db<2>)} -> {q :: bool list | dist (q<1>, q<2>) <= 2}
          -> M[DP(2.0 * e)] {r :: real list | =}
let twice e m db q = mlet a = m db in mlet b = m q in return [a; b]
"""


def test_the_parameters_domain_is_required_where_it_is_called():
    # m is called on lists two records apart, where its type speaks of adjacent ones only
    got = verdicts(DISTANT)
    assert got["twice"][0] != VERIFIED and "argument 1 of m" in got["twice"][1], got


def test_the_runs_functions_are_not_assumed_equal():
    text = (PROGRAMS / "unsound/higher_order_functions_assumed_equal.pinf").read_text()
    assert verdict(text, "apply0") != VERIFIED
    # within the type's own index it verifies
    assert verdict(text.replace("M[DP(0.0)]", "M[DP(1.0)]"), "apply0") == VERIFIED


def test_the_calls_draws_are_not_rational():
    text = OK.replace("return [a; b]", "if a > 0.0 then return [a; b] else return [b; a]")
    got = verdicts(text)
    assert got["twice"][0] != VERIFIED and "V010" in got["twice"][1] or \
        "rational" in got["twice"][1], got


# ---- what is refused (V003) -----------------------------------------------------------------

FUNS = OK.replace("val main", """let helper e d = lapMech (e, count d)
let helper2 x d = lapMech (1.0, count x + count d)

val main""")


@pytest.mark.parametrize("arg", ["(fun d -> lapMech (e, count d))", "(helper e)",
                                 "(fun (d : bool list) -> mlet z = lapMech (e, count d) in "
                                 "return (z + 1.0))"])
def test_a_fun_or_a_helper_without_a_val_passed_is_checked_in_place(arg):
    assert verdict(FUNS.replace("(noisyCount e)", arg), "main") == VERIFIED


@pytest.mark.parametrize("arg", ["(fun d -> lapMech (e, count db + count d))",
                                 "(helper2 db)", "(fun d -> lapMech (e, 2 * count d))",
                                 "(fun d -> return (count d))"])
def test_a_fun_that_costs_more_than_the_type_allows_is_not_verified(arg):
    # each run's closure reads its own db: the two runs' functions differ by more than the
    # type allows
    text = FUNS.replace("(noisyCount e)", arg).replace("2.0 * e)] {r :: real list | =}\nlet main",
                                                       "2.0)] {r :: real list | =}\nlet main")
    text = text.replace("let main e db = twice e", "let main e db = twice 1.0") \
        .replace("lapMech (e,", "lapMech (1.0,")
    assert verdict(text, "main") != VERIFIED


def test_a_fun_that_calls_the_recursive_definition_is_refused():
    text = (PROGRAMS / "classic/higher_order_repeat.pinf").read_text().replace(
        "repeat e m rest db",
        "repeat e (fun d -> mlet l = repeat e m [] d in return 0.0) rest db")
    got = verdicts(text)
    assert got["repeat"][0] != VERIFIED and "termination" in got["repeat"][1], got


def test_a_parameter_with_a_pure_result_is_refused():
    text = """
val map :: ({x :: real | =} -> {y :: real | =}) -> {xs :: real list | =} -> {ys :: real list | =}
let rec map f xs = match xs with | [] -> [] | x :: rest -> f x :: map f rest
"""
    got = verdicts(text)
    assert got["map"][0] != VERIFIED and "pure result is not supported" in got["map"][1], got


def test_verified_programs_run(capsys):
    from verifier.cli import main
    code = main(["run", str(PROGRAMS / "classic/higher_order_repeat.pinf"), "main",
                 "--arg", "e=1.0", "--arg", "db=[true; false]", "--seed", "1"])
    out = capsys.readouterr().out.strip()
    assert code == 0 and out.startswith("[") and out.count(";") == 2, out


# ---- the kernel refuses what a buggy builder verifies ---------------------------------------

@pytest.mark.parametrize("file, skipped", [
    ("mistakes/higher_order_argument_costs_more.pinf", "costs at most"),
    ("mistakes/higher_order_domain_too_strong.pinf", "contravariant"),
])
def test_the_kernel_refuses_a_builder_that_skips_an_s_fun_obligation(monkeypatch, file, skipped):
    from verifier.rules import higher_order, registry

    def bug(patch):  # the builder drops the S-Fun obligations named ``skipped``
        original = higher_order.function_argument

        def lax(b, ctx, arg, want, env, i, name):
            node = original(b, ctx, arg, want, env, i, name)
            node.obligations[:] = [ob for ob in node.obligations
                                   if skipped not in ob.provenance.description]
            return node
        patch.setitem(registry._JUDGEMENTS, registry.S_FUN, lax)
    kernel_refuses(monkeypatch, (PROGRAMS / file).read_text(), "main", bug, "S-Fun")


def test_the_kernel_refuses_a_builder_that_reads_a_funs_captures_in_one_run(monkeypatch):
    from verifier.rules import higher_order

    def bug(patch):
        original = higher_order.closure_pair

        def run_one(c1, c2, what, span):  # run 1's captured values in both runs
            return original(c1, c1, what, span)
        patch.setattr(higher_order, "closure_pair", run_one)
    text = FUNS.replace("(noisyCount e)", "(helper2 db)").replace(
        "2.0 * e)] {r :: real list | =}\nlet main", "2.0)] {r :: real list | =}\nlet main") \
        .replace("let main e db = twice e", "let main e db = twice 1.0")
    kernel_refuses(monkeypatch, text, "main", bug, "")


def test_the_kernel_refuses_a_builder_that_takes_the_runs_functions_as_equal(monkeypatch):
    from verifier.rules import equality, monadic_rules
    from verifier.translation.symbolic import FunParam

    def bug(patch):
        original = equality.equality_goals

        def same(left, right, _seen=None):
            if isinstance(left, FunParam) and isinstance(right, FunParam):
                return []
            return original(left, right, _seen)
        patch.setattr(equality, "equality_goals", same)
        patch.setattr(monadic_rules, "equality_goals", same)
    text = (PROGRAMS / "unsound/higher_order_functions_assumed_equal.pinf").read_text()
    kernel_refuses(monkeypatch, text, "apply0", bug, "")


NEVER_RUN = """
val never :: {e :: real+ | =} -> ({d :: bool list | length d<1> > 3 /\\ d<1> = d<2>} -> M[DP(e)] {r :: real | =})
          -> {db :: bool list | length db<1> > 3 /\\ db<1> = db<2>} -> {q :: bool list | q<1> = q<2>}
          -> M[DP(e)] {r :: real | =}
let never e m db q = let c = m q in m db
"""


def test_the_kernel_refuses_a_builder_that_calls_a_parameter_outside_its_domain(monkeypatch):
    # m q is made (applied) and never run: only the Safety walk sees it, and q need not be in
    # m's domain, where the function passed is shown to terminate without error
    from verifier.rules import call_facts

    def bug(patch):
        original = call_facts.call_precondition

        def lax(builder, name, args, run=1, rtype=None, env=None):
            return [] if rtype is not None else original(builder, name, args, run)
        patch.setattr(call_facts, "call_precondition", lax)
    kernel_refuses(monkeypatch, NEVER_RUN, "never", bug, "domain")


def test_run_refuses_a_function_given_on_the_command_line(tmp_path):
    """The claim holds for functions of the parameter's type; one written on the command line
    cannot be checked against it (a raw count would be released): U002, exit 2. The entry
    that passes a verified function runs."""
    import subprocess
    import sys
    from pathlib import Path
    program = Path(__file__).resolve().parent.parent / "benchmarks" / "programs" / "classic" / \
        "higher_order_twice.pinf"
    base = [sys.executable, "-m", "verifier.cli", "run", str(program)]
    out = subprocess.run(base + ["twice", "--arg", "e=1.0", "--arg",
                                 "m=fun d -> return (count d)", "--arg", "db=[true; false]"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "U002" in out.stderr and "Traceback" not in out.stderr
    out = subprocess.run(base + ["main", "--arg", "e=1.0", "--arg", "db=[true; false]"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
