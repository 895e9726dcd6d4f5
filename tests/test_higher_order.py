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
                                  "classic/higher_order_repeat.pinf",
                                  "classic/higher_order_map_clip.pinf",
                                  "classic/higher_order_fold.pinf",
                                  "classic/higher_order_lipschitz.pinf",
                                  "classic/higher_order_helper_inlined.pinf"])
def test_the_classic_programs_verify_and_the_kernel_accepts_them(file):
    got = verdicts((PROGRAMS / file).read_text())
    assert all(v == VERIFIED for v, _ in got.values()), got


@pytest.mark.parametrize("file", ["mistakes/higher_order_three_calls.pinf",
                                  "mistakes/higher_order_argument_costs_more.pinf",
                                  "mistakes/higher_order_domain_too_strong.pinf",
                                  "mistakes/higher_order_fun_captures_data.pinf",
                                  "unsound/higher_order_functions_assumed_equal.pinf",
                                  "mistakes/higher_order_not_lipschitz.pinf",
                                  "mistakes/higher_order_type_promises_too_much.pinf",
                                  "mistakes/higher_order_closure_captures_private.pinf",
                                  "unsound/higher_order_outputs_assumed_equal.pinf"])
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


def test_a_parameter_whose_codomain_is_a_domain_or_function_is_refused():
    text = """
val apply :: (({x :: real | =} -> {y :: real | =}) -> {y :: real | =}) -> {y :: real | =}
let apply g = g (fun x -> x)
"""
    got = verdicts(text)
    assert got["apply"][0] != VERIFIED and "first-order data" in got["apply"][1], got


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


# ---- parameters of function type returning a pure value -------------------------------------

MAP = """
val map :: ({x :: real | =} -> {y :: real | =}) -> {xs :: real list | =} -> {ys :: real list | =}
let rec map f xs = match xs with | [] -> [] | x :: rest -> f x :: map f rest
"""


def test_map_over_a_public_list_with_a_public_function():
    """f x is a symbol of each run's function; the type's call fact (equal inputs, equal
    outputs) and the induction hypothesis (f passed on: an S-Fun premise at the root) give
    equal results."""
    claims, cert = claims_and_certificate(MAP)
    assert claims["map"].verdict == VERIFIED, claims["map"].failure
    assert kernel.check(cert).valid
    rules = [n.rule for n in claims["map"].derivation.premises]
    assert rules[-1] == "S-Fun", rules


def test_the_runs_functions_of_a_pure_parameter_are_not_the_same():
    # without "=" on the codomain, equal inputs need not give equal outputs in the two runs
    got = verdicts(MAP.replace("-> {y :: real | =})", "-> {y :: real | true})"))
    assert got["map"][0] != VERIFIED and "the result satisfies" in got["map"][1], got
    text = (PROGRAMS / "unsound/higher_order_outputs_assumed_equal.pinf").read_text()
    got = verdicts(text)
    assert got["sumBy"][0] != VERIFIED and got["releaseBy"][0] != VERIFIED, got


def test_the_parameters_domain_is_required_of_a_pure_call():
    text = """
val at1 :: ({x :: real | abs (x<1> - x<2>) <= 1.0} -> {y :: real | abs (y<1> - y<2>) <= 1.0})
        -> {v :: real | abs (v<1> - v<2>) <= 2.0} -> {r :: real | abs (r<1> - r<2>) <= 1.0}
let at1 f v = f v
"""
    got = verdicts(text)
    assert got["at1"][0] != VERIFIED, got
    assert verdict(text.replace("<= 2.0}", "<= 1.0}"), "at1") == VERIFIED


LIPSCHITZ = (PROGRAMS / "classic/higher_order_lipschitz.pinf").read_text()


@pytest.mark.parametrize("fun, ok", [
    ("(fun c -> min (max (c, 0.0), 100.0))", True),
    ("(fun c -> c / 2.0 + 3.0)", True),
    ("(fun c -> 2.0 * c)", False),            # not 1-Lipschitz
    ("(fun c -> c + count l)", False),        # a fun over the private list
    ("(fun c -> abs (c) + 1.5 * c)", False),
])
def test_a_fun_is_checked_in_place_against_a_relational_function_type(fun, ok):
    text = LIPSCHITZ.replace("(fun c -> min (max (c, 0.0), 100.0))", fun)
    assert (verdict(text, "main") == VERIFIED) == ok


def test_a_vals_function_passed_has_the_type_by_s_fun():
    double = LIPSCHITZ.replace("let half x = x / 2.0", "let half x = x * 2.0")
    got = verdicts(double)
    assert got["half"][0] != VERIFIED and got["mainHalf"][0] != VERIFIED, got
    # a val whose type is not the parameter's (equal inputs only): contravariance fails
    narrow = LIPSCHITZ.replace("val half :: {x :: real | abs (x<1> - x<2>) <= 1.0}",
                               "val half :: {x :: real | x<1> = x<2>}")
    got = verdicts(narrow)
    assert got["half"][0] == VERIFIED and got["mainHalf"][0] != VERIFIED, got
    assert "contravariant" in got["mainHalf"][1], got


HIGHER = (PROGRAMS / "classic/higher_order_map_clip.pinf").read_text()


@pytest.mark.parametrize("arg, ok", [
    ("(fun x -> min (max (x, 0.0), 1.0))", True),
    ("clip01", True),
    ("(fun x -> min (max (x, 0.0), 2.0))", False),    # outside [0, 1]
    ("(fun x -> min (max (x + eps, 0.0), 1.0))", True),  # eps is public
    ("(fun x -> min (max (x + sum l, 0.0), 1.0))", False),  # sum l is private
])
def test_a_function_passed_in_pure_code_is_checked_at_the_root(arg, ok):
    """sum (map g l): the call facts relating map's two runs' calls rest on g having map's
    parameter type, an S-Fun premise of the root shown in the claim's parameter context."""
    text = HIGHER.replace("sum (map (fun x -> min (max (x, 0.0), 1.0)) l)", f"sum (map {arg} l)")
    claims, cert = claims_and_certificate(text)
    assert kernel.check(cert).valid
    assert (claims["mainFun"].verdict == VERIFIED) == ok, claims["mainFun"].failure
    if ok:
        assert any(n.rule == "S-Fun" for n in claims["mainFun"].derivation.premises)


def test_a_fun_over_a_release_reads_one_value_in_both_runs():
    # the release z is coupled equal: one variable of both runs, so the fun that captures it
    # is one function of the two runs (its S-Fun premise holds in the claim's parameter
    # context, where nothing else is known of z); a fun over the private list is not
    text = HIGHER + """
val afterDraw :: {l :: real list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(2.0 * eps)] {s :: real | =}
let afterDraw l eps = mlet z = lapMech (eps, 0.0) in lapMech (eps, sum (map (fun x -> min (max (x + z, 0.0), 1.0)) l))
"""
    got = verdicts(text)
    assert got["afterDraw"][0] == VERIFIED, got
    got = verdicts(text.replace("(x + z, 0.0)", "(x + length l * sum l, 0.0)"))
    assert got["afterDraw"][0] != VERIFIED, got


def test_a_fold_feeds_a_parameters_result_back_to_it():
    text = (PROGRAMS / "classic/higher_order_fold.pinf").read_text()
    assert verdict(text, "main") == VERIFIED
    more = text.replace("a + min (max (x, 0.0), 1.0)", "a + min (max (x, 0.0), 2.0)")
    assert verdict(more, "main") != VERIFIED


def test_what_a_function_passed_returns_is_rational():
    """The Decidable condition reads a call of a parameter returning a value as rational on
    rational arguments; a function passed there must be so (V010 otherwise)."""
    text = """
val thresholdBy :: ({x :: real | =} -> {y :: real | =}) -> {v :: real | =} -> {b :: bool | =}
let thresholdBy f v = f v > 0.5

val sq :: {x :: real | =} -> {y :: real | =}
let sq x = sqrt (abs x)

val half :: {x :: real | =} -> {y :: real | =}
let half x = x / 2.0

val useFun :: {v :: real | =} -> {b :: bool | =}
let useFun v = thresholdBy (fun x -> sqrt (abs x)) v

val useSq :: {v :: real | =} -> {b :: bool | =}
let useSq v = thresholdBy sq v

val useHalf :: {v :: real | =} -> {b :: bool | =}
let useHalf v = thresholdBy half v
"""
    got = verdicts(text)
    assert got["thresholdBy"][0] == VERIFIED and got["useHalf"][0] == VERIFIED, got
    for name in ("useFun", "useSq"):
        assert got[name][0] != VERIFIED and "need not be rational" in got[name][1], got


def test_a_helper_without_a_val_is_unfolded_with_its_fun():
    text = (PROGRAMS / "classic/higher_order_helper_inlined.pinf").read_text()
    assert verdict(text, "main") == VERIFIED
    assert verdict(text.replace("min (c, 5.0)", "2.0 * c"), "main") != VERIFIED
    # a recursive helper without a val is not unfolded: it needs a val (V007)
    rec = text.replace("let applyTwice f x = f (f x)",
                       "let rec applyTwice f x = match x with [] -> 0.0 | _ :: t -> applyTwice f t")
    assert verdict(rec.replace("(count l)", "[1.0]"), "main") != VERIFIED


def test_pure_higher_order_programs_run(capsys):
    from verifier.cli import main
    for file, entry in (("classic/higher_order_map_clip.pinf", "main"),
                        ("classic/higher_order_fold.pinf", "main")):
        code = main(["run", str(PROGRAMS / file), entry, "--arg", "l=[0.5; 2.0; -1.0]",
                     "--arg", "eps=1.0", "--seed", "1"])
        assert code == 0, capsys.readouterr()
    capsys.readouterr()
    code = main(["run", str(PROGRAMS / "classic/higher_order_map_clip.pinf"), "map",
                 "--arg", "f=fun x -> x", "--arg", "l=[1.0]"])
    err = capsys.readouterr().err
    assert code == 2 and "U002" in err, err


# ---- the kernel refuses what a buggy builder verifies (pure codomains) ------------------------

TOO_MUCH = (PROGRAMS / "mistakes/higher_order_type_promises_too_much.pinf").read_text()


def test_the_kernel_refuses_a_proof_without_the_s_fun_premise_of_a_call_fact(monkeypatch):
    from verifier.rules import builder

    def bug(patch):  # the call facts are assumed, their S-Fun premises never built
        patch.setattr(builder.Builder, "root_premises", lambda self: list(self.folds.values()))
    kernel_refuses(monkeypatch, TOO_MUCH, "exactSumFun", bug, "no S-Fun premise")


def test_the_kernel_refuses_a_builder_that_skips_the_covariant_codomain(monkeypatch):
    from verifier.rules import higher_order

    def bug(patch):
        original = higher_order.related_functions

        def lax(*args, **kwargs):
            node = original(*args, **kwargs)
            node.obligations[:] = [ob for ob in node.obligations
                                   if "covariant" not in ob.provenance.description]
            return node
        patch.setattr(higher_order, "related_functions", lax)
    kernel_refuses(monkeypatch, TOO_MUCH, "exactSumFun", bug, "covariance")


def test_the_kernel_refuses_a_builder_that_takes_a_parameters_two_functions_as_one(monkeypatch):
    """Forged evidence: besides the type's call fact, the builder states that the two runs'
    functions agree on equal arguments (as if both runs had passed the same function)."""
    from obligations import terms as T
    from obligations import vocabulary as V
    from verifier.rules import call_facts

    def bug(patch):
        original = call_facts.parameter_facts

        def same(builder, ctx, terms):
            out = original(builder, ctx, terms)
            sorts = {app.func.name: app.sort for app in T.ground_applications(*terms)}
            for (name,), runs in call_facts.symbol_calls(terms,
                                                         V.parameter_function_of).items():
                f1, f2 = V.parameter_function(name, 1), V.parameter_function(name, 2)
                for a in runs[1]:
                    for b in runs[2]:
                        left = V.symbol_call(f1, a, sorts[f1])
                        right = V.symbol_call(f2, b, sorts[f2])
                        out.append(T.implies(T.and_(*(T.eq(x, y) for x, y in zip(a, b))),
                                             T.eq(left, right)))
            return out
        patch.setattr(call_facts, "parameter_facts", same)
    text = (PROGRAMS / "unsound/higher_order_outputs_assumed_equal.pinf").read_text()
    kernel_refuses(monkeypatch, text, "sumBy", bug, "")


def test_a_certificate_whose_s_fun_root_premise_is_moved_is_refused():
    """Forged evidence: the S-Fun premise that the call facts of map's calls rest on is
    recorded at another place than the function passed; the kernel, which derives the
    requirement from its own obligations, refuses the certificate."""
    import copy
    _, cert = claims_and_certificate(HIGHER)
    assert kernel.check(cert).valid
    forged = copy.deepcopy(cert)
    root = next(n for n in forged["nodes"] if n["id"] == "mainFun/n1")
    last = next(n for n in forged["nodes"] if n["id"] == root["premises"][-1])
    assert last["rule"] == "S-Fun"
    last["at"] = [1, 1, 1, 2]
    outcome = kernel.check(forged)
    assert not outcome.valid and "no S-Fun premise" in outcome.reason, outcome.reason
