"""Issue 26 ([types]): the paper's type system, more of it — each construct with programs that
must verify (and whose certificates the kernel accepts), false twins that must not, and, for
each new rule, a simulated builder bug whose certificate the kernel refuses on its own."""
from __future__ import annotations

import pytest

from checker import kernel
from obligations import terms as T
from verifier.errors import PrivInferError
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program
from verifier.verification import VERIFIED
from verify_helpers import claims_and_certificate, kernel_refuses

ADJ = "{l :: bool list | adj (l<1>, l<2>)}"
EPS = "{eps :: real+ | =}"


def verdicts(text: str):
    """The verdict of each claim of ``text``, after checking that the kernel accepts the
    program's certificate (every verified claim re-derived and proved by the kernel)."""
    claims, cert = claims_and_certificate(text)
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason
    return {name: c.verdict for name, c in claims.items()}, claims


def verified(text: str, *names: str) -> None:
    found, claims = verdicts(text)
    for name in names or found:
        assert found[name] == VERIFIED, (name, claims[name].failure)


def not_verified(text: str, name: str, words: str = "") -> None:
    found, claims = verdicts(text)
    assert found[name] != VERIFIED, name
    if words:
        assert words in (claims[name].failure or ""), claims[name].failure



def type_error(text: str):
    program = parse_program(text, "t.pinf")
    with pytest.raises(PrivInferError) as info:
        typecheck_program(program)
    return info.value.first


# ---- the small items ------------------------------------------------------------------------

LEARN = """
val learn :: {l :: bool list | =} -> M[SD] {x :: [0,1] | =} -> M[SD] {x :: [0,1] | =}
let rec learn db prior = match db with
  | [] -> prior
  | d :: dbs -> mlet p = learn dbs prior in
                observe (fun r -> mlet z = ran (bernoulli r) in return (d = z)) p
"""


def test_mlet_then_observe_of_the_draw_is_the_papers_listing():
    """``mlet p = e in observe f p`` (docs/language.md) is ``observe f e``: it types, runs and
    verifies as that; a likelihood that mentions the draw keeps its plain (ill-typed) reading."""
    program = parse_program(LEARN, "t.pinf")
    body = program.lets()[0].body.cons_body
    assert type(body).__name__ == "Observe" and body.drawn == "p"
    verified(LEARN)
    verified(LEARN + f"""
val main :: {ADJ} -> {EPS} -> M[DP(2.0 * eps)] {{x :: real | =}}
let main db eps =
  mlet t = ran (infer (learn [true; false] (ran (beta (1.0, 1.0))))) in lapMech (eps, t + count db)
""")
    # the false twin: the data are private, the posterior released as it is
    not_verified(LEARN.replace("{l :: bool list | =}", ADJ), "learn")
    assert type_error("let f = mlet p = ran (beta (1.0, 1.0)) in\n"
                      "  observe (fun r -> return (r = p)) p").code == "T002"


def test_a_val_types_its_parameters_before_the_body():
    """``let q x = x + 1`` under ``val q :: int -> int`` adds integers (T009 before)."""
    verified("val q :: {x :: int | =} -> {y :: int | y<1> = y<2>}\nlet q x = x + 1")
    not_verified("val q :: {x :: int | x<1> <= x<2>} -> {y :: int | y<1> = y<2>}\n"
                 "let q x = x + 1", "q")


INDEX_THROUGH_LENGTH = f"""
val noisy :: {ADJ} -> {EPS} -> M[DP(eps)] {{x :: real | =}}
let noisy l eps = lapMech (eps, count l)
val main :: {ADJ} -> M[DP(1.0)] {{x :: real | =}}
let main db = noisy db (1.0 / (1.0 + length db))
"""


def test_a_calls_index_written_through_the_length_of_adjacent_data():
    """An argument refined ``=`` is proved equal at the call, and the callee's index reads it
    as one value (``eps`` given as ``1 / (1 + length db)`` on adjacent lists)."""
    verified(INDEX_THROUGH_LENGTH)
    # the false twin: the count is not equal in both runs
    not_verified(INDEX_THROUGH_LENGTH.replace("length db", "count db"), "main",
                 "argument 2 of noisy")


def test_the_kernel_refuses_an_index_argument_taken_as_equal(monkeypatch):
    from verifier.rules import core_rules

    def bug(patch):  # the builder takes the argument as equal without proof
        patch.setattr(core_rules, "equal_term", lambda a, b: T.boolean(True))
    kernel_refuses(monkeypatch, INDEX_THROUGH_LENGTH.replace("length db", "count db"), "main",
                   bug, "argument 2")


# ---- local let rec ----------------------------------------------------------------------------

LOCAL_COUNT = f"""
val main :: {ADJ} -> {{p :: bool list | =}} -> {EPS} -> M[DP(eps)] {{x :: real | =}}
let main db pub eps =
  let rec cnt xs = match xs with | [] -> 0 | x :: ys -> (if x then 1 else 0) + cnt ys in
  lapMech (eps, count db + cnt pub)
"""
LOCAL_LOOP = LOCAL_COUNT.replace("(if x then 1 else 0) + cnt ys", "cnt xs")
LOCAL_RR = f"""
val main :: {ADJ} -> {{p :: bool list | =}} -> {EPS} -> M[DP(eps)] {{x :: bool list | =}}
let main db pub eps =
  let rec go l = match l with
    | [] -> return []
    | x :: xs -> mlet c = ran (bernoulli 0.5) in mlet r = go xs in
                 return ((if c then x else not x) :: r) in
  go pub
"""


def test_local_recursive_functions():
    """A local ``let rec`` (which can have no val) is called as a deterministic symbol of
    its arguments and captured values, and shown total on every argument of their sorts
    (structural recursion): on public data its calls are equal in both runs."""
    verified(LOCAL_COUNT)
    verified(LOCAL_RR)
    verified("""val f :: {l :: bool list | =} -> {n :: real | =}
let f l = let rec c xs = match xs with | [] -> 0 | x :: ys -> 1 + c ys in c l""")
    # false twins: a loop, a call on the private list, a function capturing it
    not_verified(LOCAL_LOOP, "main", "shorter list")
    not_verified(LOCAL_COUNT.replace("cnt pub", "cnt db"), "main", "privacy cost")
    not_verified(LOCAL_COUNT.replace("(if x then 1 else 0)", "count db").replace(
        "count db + cnt pub", "cnt pub"), "main")
    not_verified(LOCAL_RR.replace("  go pub", "  go db"), "main")
    not_verified(LOCAL_RR.replace("mlet r = go xs", "mlet r = go l"), "main", "shorter list")
    # a division the function makes on some argument of its sort
    not_verified(LOCAL_COUNT.replace("(if x then 1 else 0) + cnt ys",
                                     "1 / length ys + cnt ys"), "main", "divisor")


def test_the_kernel_refuses_a_local_function_not_shown_total(monkeypatch):
    from verifier.rules.safety import Safety

    def bug(patch):  # the builder does not check the local function's body
        patch.setattr(Safety, "local_body", lambda self, *args, **kwargs: None)
    kernel_refuses(monkeypatch, LOCAL_LOOP, "main", bug, "shorter list")


# ---- first-order data: tuples -------------------------------------------------------------------

TUPLE_PARAMETER = """
val noisy :: {p :: bool list * real | adj (fst p<1>, fst p<2>) /\\ snd p<1> = snd p<2>
                                      /\\ snd p<1> > 0.0}
          -> M[DP(snd p<1>)] {x :: real | =}
let noisy (db, eps) = lapMech (eps, count db)
"""
TUPLE_RESULT = f"""
val stats :: {ADJ} -> {{r :: real * real | abs (fst r<1> - fst r<2>) <= 1.0 /\\ snd r<1> = snd r<2>}}
let stats l = (count l, length l)
val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{x :: real | =}}
let main db eps = let (c, n) = stats db in lapMech (eps, c + n)
"""
TUPLE_DRAWS = f"""
val both :: {ADJ} -> {EPS} -> M[DP(2.0 * eps)] {{r :: real * real | =}}
let both db eps = mlet a = lapMech (eps, count db) in mlet b = lapMech (eps, count db) in return (a, b)
val main :: {ADJ} -> {EPS} -> M[DP(2.0 * eps)] {{x :: real | =}}
let main db eps = mlet (a, b) = both db eps in return (a + b)
"""


def test_tuples_as_parameters_results_and_draws():
    verified(TUPLE_PARAMETER)
    verified(TUPLE_RESULT)
    verified(TUPLE_DRAWS)
    verified(f"""val pair :: {{a :: real * real | =}} -> {{b :: real | =}}
let pair (x, y) = x + y
val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{x :: real | =}}
let main db eps = lapMech (eps, count db + pair (length db, 2.0))""")
    verified("""val f :: {p :: [0,1]^3 | =} -> M[SD] {c :: [3] | =}
let f p = ran (categorical p)""")
    # false twins
    not_verified(TUPLE_PARAMETER.replace("/\\ snd p<1> = snd p<2>", ""), "noisy")
    not_verified(TUPLE_RESULT.replace("<= 1.0", "<= 0.5"), "stats")
    not_verified(TUPLE_RESULT.replace("snd r<1> = snd r<2>", "true"), "main")
    not_verified(TUPLE_DRAWS.replace("M[DP(2.0 * eps)] {x", "M[DP(eps)] {x"), "main")
    not_verified(f"""val pair :: {{a :: real * real | =}} -> {{b :: real | =}}
let pair (x, y) = x + y
val main :: {ADJ} -> {EPS} -> M[DP(eps)] {{x :: real | =}}
let main db eps = lapMech (eps, pair (count db, 2.0))""", "main", "privacy cost")


def test_the_kernel_refuses_a_tuple_parameter_taken_as_equal(monkeypatch):
    from verifier.rules import core_rules
    text = """val f :: {p :: bool list * real | snd p<1> = snd p<2>} -> M[DP(1.0)] {x :: real | =}
let f (db, e) = lapMech (1.0, count db)
"""

    def bug(patch):  # the builder reads any refinement as "equal in both runs"
        patch.setattr(core_rules, "_shared", lambda var, assertions: True)
    kernel_refuses(monkeypatch, text, "f", bug, "equal in both runs")


# ---- Delta[F] assertions, Ran for every divergence, S-M ------------------------------------------

RHO = "let rho = sqrt (1.0 - pi / 4.0)\n"
LEARN_BIAS = """
val learnBias :: {l :: bool list | =} -> M[SD] {x :: [0,1] | =} -> M[SD] {x :: [0,1] | =}
let rec learnBias db prior = match db with
  | [] -> prior
  | d :: dbs -> observe (fun r -> mlet z = ran (bernoulli r) in return (d = z)) (learnBias dbs prior)
"""
POSTERIOR_HD = RHO + LEARN_BIAS + f"""
val post :: {ADJ} -> {{d :: D[[0,1]] | Delta[HD] (d<1>, d<2>) <= rho * rho}}
let post l = infer (learnBias l (ran (beta (2.0, 2.0))))
val main :: {ADJ} -> M[HD, rho * rho] {{x :: real | =}}
let main db = ran (post db)
"""


def release(bound: str, claim: str, extra: str = "", body: str = "ran d",
            elem: str = "bool") -> str:
    return (f"val release :: {{d :: D[{elem}] | {bound}}}{extra} -> {claim} {{x :: {elem} | =}}\n"
            f"let release d{' eps' if extra else ''} = {body}\n")


def test_delta_assertions_on_parameters_and_results_read_by_ran():
    """``{d :: D[T] | Delta[F] (d<1>, d<2>) <= b}`` (§5): the f-divergence of two symbolic
    distributions, assumed of a parameter, shown of a result, and read by Ran — for SD, HD
    (the square of the Hellinger distance), KL, and DP(eps) (Ran-DP); under a DP claim an SD
    bound is (0, delta)-DP."""
    verified(release("Delta[HD] (d<1>, d<2>) <= 0.1", "M[HD, 0.1]"))
    verified(release("Delta[KL] (d<1>, d<2>) <= 0.5", "M[KL, 0.5]"))
    verified(release("Delta[SD] (d<1>, d<2>) <= 0.5", "M[SD, 0.5]"))
    verified(release("Delta[DP(1.0)] (d<1>, d<2>) <= 0.01", "M[DP(1.0), 0.01]"))
    verified(release("Delta[SD] (d<1>, d<2>) <= 0.01", "M[DP(eps), 0.01]", f" -> {EPS}",
                     "mlet x = ran d in mlet y = lapMech (eps, 0.0) in return x"))
    verified(release("Delta[SD] (d<1>, d<2>) <= 0.01", "M[DP(eps), 0.01]", f" -> {EPS}",
                     "mlet x = (mlet y = ran d in mlet z = lapMech (eps, 0.0) in return y) in "
                     "return x"))
    verified(POSTERIOR_HD)
    # false twins: a weaker assumption than the claim, another divergence, too small a bound
    not_verified(release("Delta[HD] (d<1>, d<2>) <= 0.2", "M[HD, 0.1]"), "release", "delta")
    not_verified(release("Delta[SD] (d<1>, d<2>) <= 0.2", "M[KL, 0.2]"), "release")
    not_verified(release("Delta[HD] (d<1>, d<2>) <= 0.1", "M[SD, 0.1]"), "release")
    not_verified(release("Delta[DP(2.0)] (d<1>, d<2>) <= 0.01", "M[DP(1.0), 0.01]"), "release")
    not_verified(release("Delta[SD] (d<1>, d<2>) <= 0.02", "M[DP(eps), 0.01]", f" -> {EPS}",
                         "mlet x = ran d in mlet y = lapMech (eps, 0.0) in return x"), "release")
    not_verified(POSTERIOR_HD.replace("<= rho * rho}", "<= 0.01}"), "post")
    # the draws of a D[[3]] parameter are in 0..2 (its callers show it: within'[3] (d), see
    # test_draws_of_a_distribution_parameter_have_the_range_of_its_type); of a D[int] not
    three = release("Delta[SD] (d<1>, d<2>) <= 0.5", "M[SD, 0.5]", elem="[3]",
                    body="mlet c = ran d in return (c :: [])").replace(
                        "{x :: [3] | =}", "{x :: [3] list | =}")
    verified(three)
    not_verified(three.replace("D[[3]]", "D[int]"), "release", "the type its val says")


def test_monadic_subsumption_is_a_node_of_its_own():
    """S-M (§5): where a path's index meets the claim (under Budget), and where a computation
    within a bound is passed to a val expecting one within a larger bound (under App-Val)."""
    text = """val run :: M[DP(1.0)] {x :: bool | =} -> M[DP(1.0)] {x :: bool | =}
let run m = m
val main :: M[DP(0.5)] {x :: bool | =} -> M[DP(1.0)] {x :: bool | =}
let main m = run m
val bad :: M[DP(2.0)] {x :: bool | =} -> M[DP(1.0)] {x :: bool | =}
let bad m = run m
"""
    found, claims = verdicts(text)
    assert found["run"] == found["main"] == VERIFIED and found["bad"] != VERIFIED
    rules = [n.rule for n in claims["main"].derivation.walk()]
    assert rules == ["Abs", "Safety", "Budget", "App-Val", "S-M", "S-M"]
    assert "within the bound its val expects [S-M]" in claims["bad"].failure


def test_the_kernel_refuses_a_ran_charged_nothing(monkeypatch):
    from verifier.language import ast as A
    from verifier.rules import monadic_rules, registry
    from verifier.rules.context import zero_cost
    text = release("Delta[KL] (d<1>, d<2>) <= 0.5", "M[KL, 0.1]")
    real = monadic_rules.Ran

    def bug(patch):  # the builder's Ran charges nothing
        def free(b, ctx, e):
            from obligations.records import replace
            return replace(real(b, ctx, e), cost=zero_cost("ran"))
        patch.setitem(registry._SYNTHESIS, A.Ran, [free])
    kernel_refuses(monkeypatch, text, "release", bug, "delta")


def test_the_kernel_refuses_a_computation_passed_beyond_its_bound(monkeypatch):
    from verifier.rules import core_rules
    text = """val run :: M[DP(1.0)] {x :: bool | =} -> M[DP(1.0)] {x :: bool | =}
let run m = m
val bad :: M[DP(2.0)] {x :: bool | =} -> M[DP(1.0)] {x :: bool | =}
let bad m = run m
"""

    def bug(patch):  # S-M without its obligations
        patch.setattr(core_rules, "_passed_within", lambda *args: [])
    kernel_refuses(monkeypatch, text, "bad", bug, "within the bound")


def test_the_kernel_demands_a_non_negative_eps_of_ran_dp(monkeypatch):
    from verifier.rules import monadic_rules
    text = release("Delta[DP(0.0 - 1.0)] (d<1>, d<2>) <= 0.5", "M[DP(0.0), 1.0]",
                   body="ran d")
    real_oblige = monadic_rules.Builder.oblige

    def bug(patch):  # Ran-DP without its side condition
        def oblige(self, ctx, kind, goal, description, span, rule):
            if rule == "Ran-DP":
                goal = T.boolean(True)
            return real_oblige(self, ctx, kind, goal, description, span, rule)
        patch.setattr(monadic_rules.Builder, "oblige", oblige)
    kernel_refuses(monkeypatch, text, "release", bug, "not negative")


# ---- lists of tuples ----------------------------------------------------------------------------

RECORDS = f"""
val flagged :: {{l :: (bool * real) list | adj (l<1>, l<2>)}} -> {{s :: real | abs (s<1> - s<2>) <= 1.0}}
let rec flagged db = match db with
  | [] -> 0.0
  | r :: rs -> let (flag, v) = r in (if flag then 1.0 else 0.0) + flagged rs

val main :: {{l :: (bool * real) list | adj (l<1>, l<2>)}} -> {EPS} -> M[DP(eps)] {{x :: real | =}}
let main db eps = lapMech (eps, flagged db)

val literal :: {EPS} -> M[DP(eps)] {{x :: real | =}}
let literal eps = lapMech (eps, flagged [(true, 1.0); (false, 2.0)] + length [(1, 2.0)])
"""


def test_lists_of_tuples():
    """A list of tuples is a list of elements of a tuple sort (``vocabulary.tuple_make``,
    ``tuple_get``): a record list as data, its elements taken apart by patterns."""
    verified(RECORDS)
    # false twins: the value is unbounded; the claim of the literal is too small
    not_verified(RECORDS.replace("(if flag then 1.0 else 0.0)", "(if flag then v else 0.0)"),
                 "flagged")
    not_verified(RECORDS.replace("let literal eps = lapMech (eps,",
                                 "let literal eps = lapMech (eps, length [(0, 0.0)] * flagged db +")
                 .replace(f"val literal :: {EPS}", f"val literal :: {{l :: (bool * real) list | adj (l<1>, l<2>)}} -> {EPS}")
                 .replace("let literal eps", "let literal db eps")
                 .replace("M[DP(eps)] {x :: real | =}\nlet literal", "M[DP(eps / 2.0)] {x :: real | =}\nlet literal"),
                 "literal")


def test_the_kernel_refuses_a_record_taken_from_one_run(monkeypatch):
    from verifier.rules import core_rules
    real = core_rules.element_value
    text = RECORDS.replace("(if flag then 1.0 else 0.0)", "(if flag then v else 0.0)")
    seen = []

    def bug(patch):  # the builder's match gives run 2 the head of run 1
        def first(term):
            seen.append(term)
            return real(seen[-2] if len(seen) % 2 == 0 else term)
        patch.setattr(core_rules, "element_value", first)
    kernel_refuses(monkeypatch, text, "flagged", bug, "the claim's refinement")


def test_an_observe_run_cannot_infer_is_not_verified():
    """``run`` samples an observe from its exact posterior, and stops (R003) on a likelihood
    that is not conjugate to a continuous prior: where the Safety walk sees the prior, the
    posterior must have its closed form (a verified program must run)."""
    text = """val main :: {l :: bool list | =} -> M[SD] {x :: [0,1] | =}
let main db = observe (fun r -> mlet z = ran (bernoulli (r * r)) in return z) (ran (beta (1.0, 1.0)))
"""
    not_verified(text, "main", "run draws from this observe")
    verified(text.replace("bernoulli (r * r)) in return z", "bernoulli r) in return (true = z)"))
    verified(text.replace("(ran (beta (1.0, 1.0)))", "(ran (bernoulli 0.5))").replace(
        "bernoulli (r * r)", "bernoulli (if r then 0.9 else 0.2)").replace("[0,1]", "bool"))


# ---- the draws of a distribution parameter D[T] keep T's ranges ----------------------------------

ROLL = """val roll :: {d :: D[[3]] | =} -> M[SD] {c :: [3] list | =}
let roll d = mlet c = ran d in return [c; c]
"""
FLIP = """val flip :: {d :: D[[0,1]] | =} -> M[SD] {x :: [0,1] list | =}
let flip d = mlet p = ran d in return [p]
"""


def test_draws_of_a_distribution_parameter_have_the_range_of_its_type():
    """A ``D[T]`` parameter (or result) says ``within'T (d)``: its draws are values of T, ranges
    included (``logic.dist_within``); a caller shows it of what it passes — of a known family
    by the family's support, of its own ``D[T]`` parameter by its assumption — and a val
    returning ``D[T]`` shows it of its result. Simple typing lets a ``D[int]`` or a ``normal``
    flow where a ``D[[3]]`` or a ``D[[0,1]]`` is written: that is where the range is lost."""
    verified(ROLL)
    verified(FLIP)
    verified(ROLL + "val main :: {p :: [0,1]^3 | =} -> M[SD] {c :: [3] list | =}\n"
                    "let main p = roll (categorical p)\n")
    verified(ROLL + "val main :: {d :: D[[3]] | =} -> M[SD] {c :: [3] list | =}\n"
                    "let main d = roll d\n")
    verified(FLIP + "val main :: {m :: real+ | =} -> M[SD] {x :: [0,1] list | =}\n"
                    "let main m = flip (beta (m, 1.0))\n")
    verified("val mk :: {a :: real+ | =} -> {d :: D[[0,1]] | =}\nlet mk a = beta (a, 1.0)")
    # false twins: no range written, a wider parameter passed on, a normal passed or returned
    not_verified(ROLL.replace("D[[3]]", "D[int]"), "roll", "the type its val says")
    not_verified(ROLL + "val main :: {d :: D[int] | =} -> M[SD] {c :: [3] list | =}\n"
                        "let main d = roll d\n", "main")
    not_verified(FLIP + "val main :: {m :: real | =} -> M[SD] {x :: [0,1] list | =}\n"
                        "let main m = flip (normal (m, 1.0))\n", "main", "argument 1 of flip")
    not_verified("val mk :: {a :: real+ | =} -> {d :: D[[0,1]] | =}\nlet mk a = normal (a, 1.0)",
                 "mk", "the result has the type")


def test_the_kernel_refuses_draws_given_a_range_their_distribution_does_not_show(monkeypatch):
    from verifier.rules import safety
    real = safety._draws_of
    text = """val roll :: {e :: D[[3]] | =} -> {d :: D[int] | =} -> M[SD] {c :: [3] list | =}
let roll e d = mlet c = ran d in return [c; c]
"""

    def bug(patch):  # the builder reads the range of another distribution of the context
        def wrong(ctx, d, t):
            others = [h.args[0] for _, h in ctx.hyps
                      if isinstance(h, T.Apply) and h.func.name.startswith("within'")]
            return real(ctx, others[0], t) if others else real(ctx, d, t)
        patch.setattr(safety, "_draws_of", wrong)
    kernel_refuses(monkeypatch, text, "roll", bug, "the type its val says")


def test_the_kernel_refuses_a_distribution_passed_without_its_range(monkeypatch):
    from verifier.language import ast as A
    from verifier.rules import safety
    real = safety.Safety.has_type

    def bug(patch):  # the builder does not show the range of a distribution it passes
        def has_type(self, ctx, value, want, *args, **kwargs):
            if not isinstance(want, A.TDist):
                real(self, ctx, value, want, *args, **kwargs)
        patch.setattr(safety.Safety, "has_type", has_type)
        patch.setattr(safety.Safety, "_in_domain", lambda *args, **kwargs: None)
    kernel_refuses(monkeypatch, FLIP + "val main :: {m :: real | =} -> M[SD] {x :: [0,1] list | =}\n"
                   "let main m = flip (normal (m, 1.0))\n", "main", bug, "flip")


def test_run_checks_the_draws_of_a_distribution_argument():
    from verifier.semantics.distributions import Beta, Categorical, Normal
    from verifier.semantics.evaluator import check_value
    from fractions import Fraction as Q
    from verifier.language import ast as A
    unit, three = A.TDist(A.TBase("[0,1]")), A.TDist(A.TFin(3))
    assert check_value(Beta(Q(2), Q(1)), unit, "d") == Beta(Q(2), Q(1))
    assert check_value(Categorical((Q(1, 2), Q(1, 2))), three, "d")
    for value, t in ((Normal(Q(0), Q(1)), unit), (Categorical((Q(1, 4),) * 4), three)):
        with pytest.raises(PrivInferError) as info:
            check_value(value, t, "d")
        assert info.value.first.code == "R001"


# ---- small forms users write ------------------------------------------------------------------

PEOPLE = f"""
val countOld :: {{l :: (nat * bool) list | adj (l<1>, l<2>)}} -> {{c :: real | abs (c<1> - c<2>) <= 1.0}}
let rec countOld people = match people with
  | [] -> 0.0
  | (age, smoker) :: rest -> (if age > 60 && smoker then 1.0 else 0.0) + countOld rest

val main :: {{l :: (nat * bool) list | adj (l<1>, l<2>)}} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let main people eps = lapMech (eps, countOld people)
"""


def test_a_tuple_pattern_heads_a_cons_branch():
    """``| (a, b) :: rest -> e`` is ``| h :: rest -> let (a, b) = h in e``."""
    body = parse_program(PEOPLE, "t.pinf").lets()[0].body.cons_body
    assert type(body).__name__ == "Let" and body.value.name.startswith("hd#")
    verified(PEOPLE)
    not_verified(PEOPLE.replace("(if age > 60 && smoker then 1.0 else 0.0)",
                                "(if smoker then age else 0.0)"), "countOld")


GUESS = """val guess :: {l :: bool list | =} -> M[SD] {c :: [3] | =}
let rec guess readings = match readings with
  | [] -> ran (categorical (0.2, 0.3, 0.5))
  | r :: rs -> observe (fun c -> mlet z = ran (bernoulli (if c = 0 then 0.1 else 0.6)) in
                                 return (r = z)) (guess rs)
"""


def test_a_tuple_literal_is_a_point_of_the_simplex_for_categorical():
    """``categorical (0.2, 0.3, 0.5)`` (T003 before): the literal is one argument, a point of
    the simplex whose range the verifier shows (a finite prior observed, Observe)."""
    verified(GUESS)
    found, _ = verdicts(GUESS.replace("(0.2, 0.3, 0.5)", "(0.5, 0.6, 0.1)"))
    assert found["guess"] == "refuted"
    not_verified(GUESS.replace("(0.2, 0.3, 0.5)", "(0.2, 0.3, 0.5, 0.0)"), "guess")
    verified("val f :: {a :: real | =} -> {b :: real | =}\nlet f a = fst (a, 2.0)")


DECIDE = """val g :: {d :: D[[0,1]] | =} -> {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =}
       -> M[DP(eps)] {b :: real | =}
let g d db eps = mlet p = ran d in lapMech (eps, if p < count db then 1.0 else 0.0)
"""


def test_draws_of_a_distribution_on_the_unit_interval_are_rational():
    """A ``D[[0,1]]`` (``D[[0,1]^k]``) is a beta, a uniform (a dirichlet), a posterior of one
    drawn by rejection, or an entry's argument of those families with rational parameters:
    ``run`` draws exact rationals from each, so the Decidable condition reads its draws as
    rationals (``ranges.rational_draws``), as a ``ran (beta …)``'s. A ``D[real]`` may be a
    normal: its draws are not, and a comparison of one with private data is refused (V010)."""
    verified(DECIDE)
    verified("""val flip :: {d :: D[[0,1]] | =} -> M[SD] {b :: bool | =}
let flip d = mlet p = ran d in ran (bernoulli p)""")
    verified("""val pick :: {d :: D[[0,1]^3] | Delta[KL] (d<1>, d<2>) <= 0.3} -> M[KL, 0.3] {c :: [3] | =}
let pick d = mlet p = ran d in ran (categorical p)""")
    not_verified(DECIDE.replace("D[[0,1]]", "D[real]"), "g", "cannot always decide")


def test_the_kernel_refuses_draws_taken_as_rational_without_cause(monkeypatch):
    from verifier.rules import safety

    def bug(patch):  # the builder reads every draw of a distribution parameter as rational
        patch.setattr(safety, "rational_draws", lambda hyps, d: True)
    kernel_refuses(monkeypatch, DECIDE.replace("D[[0,1]]", "D[real]"), "g", bug, "decide")


# ---- a top-level recursive helper without a val -------------------------------------------------

TOTAL = f"""let rec tot xs = match xs with | [] -> 0.0 | x :: rest -> x + tot rest

val main :: {ADJ} -> {{w :: real list | =}} -> {EPS} -> M[DP(eps)] {{r :: real | =}}
let main db w eps =
  mlet c = lapMech (eps, count db) in
  return (c + tot w)
"""


def test_a_top_level_recursive_function_without_a_val_is_a_local_one():
    """A top-level ``let rec`` without a val (V007 before) is read as a local ``let rec``
    closed over the definitions before it: total on every argument of its sorts, equal in
    both runs on equal arguments — so usable on public data, and nothing more."""
    verified(TOTAL)
    # false twins: on the private list; a loop; a division by zero on some argument
    not_verified(TOTAL.replace("c + tot w", "c + tot (if count db > 0.0 then w else [])"),
                 "main")
    not_verified(TOTAL.replace("x + tot rest", "x + tot xs"), "main", "shorter list")
    not_verified(TOTAL.replace("x + tot rest", "x / length rest + tot rest"), "main",
                 "divisor")


def test_an_observe_fold_without_a_val_is_still_read_by_infer():
    """Only a helper of first-order parameters and result is read as a local ``let rec``: an
    observe-fold taking its prior as a computation keeps its name, which ``infer`` reads
    through its definition (its closed form)."""
    verified("""let rec learn obs prior = match obs with
  | [] -> prior
  | o :: os -> observe (fun th -> mlet z = ran (bernoulli th) in return (o = z)) (learn os prior)

val main :: {l :: bool list | =} -> {d :: D[[0,1]] | =}
let main db = infer (learn db (ran (beta (1.0, 1.0))))
""")


def test_the_kernel_refuses_a_top_level_helper_not_shown_total(monkeypatch):
    from verifier.rules.safety import Safety

    def bug(patch):  # the builder does not check the helper's body
        patch.setattr(Safety, "local_body", lambda self, *args, **kwargs: None)
    kernel_refuses(monkeypatch, TOTAL.replace("x + tot rest", "x + tot xs"), "main", bug,
                   "shorter list")
