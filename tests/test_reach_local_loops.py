"""Issue 26, loops written as a local ``let rec`` inside a definition: a local function
returning a computation that releases on private data it captures (a counter counted down
from a public value, or a walk over a public list) is proved against the val its shape states
(``invariants.local_loop_val``: every parameter ``=``, the index the iteration's epsilon
times the measure) by induction, in the context where it is defined (``LetRec-Local``), which
the kernel states and checks itself. Programs that must verify (their certificates accepted),
twins that must not, and a builder bug the kernel refuses on its own."""
from __future__ import annotations

import pytest

from test_reach import not_verified, verified
from verify_helpers import kernel_refuses

HEAD = ("val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} "
        "-> M[DP(CLAIM)] {xs :: real list | =}\n")


def rep(calls: str = "rep 3", claim: str = "3.0 * eps", query: str = "count db",
        guard: str = "k <= 0", step: str = "k - 1") -> str:
    """A counter loop releasing ``query`` once per iteration, called as ``calls``."""
    return HEAD.replace("CLAIM", claim) + f"""let main db eps =
  let rec rep k = if {guard} then return []
                  else mlet v = lapMech (eps, {query}) in
                       mlet vs = rep ({step}) in return (v :: vs) in
  {calls}
"""


def walk(body: str = "mlet x = lapMech (eps, count db) in mlet r = go rest in "
         "return ((x + t) :: r)", call: str = "go ts", claim: str = "eps * length ts",
         params: str = "xs", nil: str = "return []") -> str:
    """A loop walking the public list ``ts``."""
    return f"""val main :: {{l :: bool list | adj (l<1>, l<2>)}} -> {{ts :: real list | =}}
         -> {{eps :: real+ | =}} -> M[DP({claim})] {{r :: real list | =}}
let main db ts eps =
  let rec go {params} = match xs with
    | [] -> {nil}
    | t :: rest -> {body} in
  {call}
"""


@pytest.mark.parametrize("text", [
    rep(),
    rep(calls="mlet xs = rep 3 in return xs"),
    rep(guard="k <= 1", step="k - 2"),                  # 1 release, charged 3
    rep(calls="rep 2", claim="2.0 * eps"),
    rep(calls="rep 0", claim="0.0"),
    # the loop bound in an mlet (the synthesis rule of LetRec-Local)
    HEAD.replace("CLAIM", "3.0 * eps") + """let main db eps =
  mlet out = (let rec rep k = if k <= 0 then return []
                              else mlet v = lapMech (eps, count db) in
                                   mlet vs = rep (k - 1) in return (v :: vs) in
              rep 3) in
  return out
""",
    walk(),
    walk(params="xs (acc : real)", nil="return [acc]", call="go ts 0.0",
         body="mlet x = lapMech (eps, count db) in mlet y = lapMech (eps, count db) in "
              "go rest (acc + x + y)", claim="2.0 * eps * length ts"),
])
def test_a_local_loop_on_private_data_is_proved_by_its_val(text):
    verified(text, "main")


@pytest.mark.parametrize("text", [
    rep(calls="rep 4"),                                   # 4 releases, 3 charged
    rep(calls="rep (count db)", claim="3.0 * eps"),       # a count from private data
    rep(calls="rep (length db)", claim="3.0 * eps"),      # public, but not bounded by 3
    rep(calls="rep 2.5", claim="2.5 * eps"),              # a real counter: 3 releases
    rep(calls="rep (eps + 1.0)", claim="eps * (eps + 1.0)"),
    rep(query="2.0 * count db"),                          # noise too small for the query
    rep(guard="k = 0"),                                   # loops on a negative counter
    rep(step="k + 1 - 2"),                                # no counter counted down
    HEAD.replace("CLAIM", "3.0 * eps").replace("{eps :: real+ | =}",
                                               "{eps :: real+ | =} -> {k :: nat | =}")
    + """let main db eps k =
  let rec rep j = if j <= 0 then return []
                  else mlet v = lapMech (eps, count db) in
                       mlet vs = rep (j - 1) in return (v :: vs) in
  rep k
""",                                                      # k releases, claimed 3
    # the output depends on private data through a branch of the loop
    HEAD.replace("CLAIM", "3.0 * eps") + """let main db eps =
  let rec rep k = if k <= 0 then return []
                  else mlet v = lapMech (eps, count db) in
                       mlet vs = rep (k - 1) in
                       if count db > 2 then return (v :: vs) else return vs in
  rep 3
""",
    # the recursive call made in pure code, run later: charged once, made three times
    HEAD.replace("CLAIM", "1.0 * eps") + """let main db eps =
  let rec rep k = if k <= 0 then return []
                  else let m = rep (k - 1) in
                       mlet v = lapMech (eps, count db) in
                       mlet vs = m in return (v :: vs) in
  rep 3
""",
    walk(call="go ts", claim="eps"),                       # length ts releases, claimed 1
    walk(body="mlet x = lapMech (eps, count db) in mlet r = go ts in return (x :: r)"),
    walk(params="xs (acc : real)", nil="return [acc]", call="go ts 0.0",
         body="mlet x = lapMech (eps, count db) in go rest (acc + x + count db)"),
])
def test_a_local_loop_whose_claim_is_false_is_not_proved(text):
    not_verified(text, "main")


def test_a_loop_over_values_shown_equal_in_both_runs_costs_nothing():
    text = """val main :: {l :: bool list | adj (l<1>, l<2>)} -> {y :: real | y<1> = y<2>}
         -> {eps :: real+ | =} -> M[DP(eps)] {xs :: real list | =}
let main db y eps =
  let rec rep k = if k <= 0 then return []
                  else mlet v = lapMech (eps, y) in
                       mlet vs = rep (k - 1) in return (v :: vs) in
  mlet a = rep 3 in mlet b = lapMech (eps, count db) in return (b :: a)
"""
    verified(text, "main")
    not_verified(text.replace("y<1> = y<2>", "abs (y<1> - y<2>) <= 1.0"), "main")


def test_a_private_list_walked_by_a_local_loop_is_not_proved():
    text = """val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =}
         -> M[DP(eps * length l<1>)] {r :: real list | =}
let main db eps =
  let rec go xs = match xs with
    | [] -> return []
    | t :: rest -> mlet x = lapMech (eps, count db) in mlet r = go rest in
                   return ((if t then x else x + 1.0) :: r) in
  go db
"""
    not_verified(text, "main")


def test_the_kernel_refuses_a_loop_charged_one_iteration_fewer(monkeypatch):
    from obligations.records import replace
    from verifier.language import ast as A
    from verifier.rules import core_rules
    from verifier.translation.symbolic import FunParam
    real = core_rules.local_loop

    def bug(patch):  # the builder proves the loop's val, then charges its calls one fewer
        def cheaper(b, ctx, e):
            known, proof = real(b, ctx, e)
            f1, f2 = known.env.lookup(e.name)
            rt, doms = f1.rtype, []
            while isinstance(rt, A.RArrow):
                doms.append(rt.dom)
                rt = rt.cod
            measure = rt.div.eps.right
            less = A.BinOp("-", measure, A.IntLit(1, rt.span), rt.span)
            rt = replace(rt, div=replace(rt.div, eps=replace(rt.div.eps, right=less)))
            for d in reversed(doms):
                rt = A.RArrow(d, rt, rt.span)
            known = known.bind(e.name, FunParam(e.name, rt, f1.env, 1),
                               FunParam(e.name, rt, f2.env, 2))
            return known, proof
        patch.setattr(core_rules, "local_loop", cheaper)
    kernel_refuses(monkeypatch, rep(calls="rep 4"), "main", bug, "not proved")


# ---- Decidable: a local function's parameters, rational by induction over its calls -----------

BEST = HEAD.replace("CLAIM", "3.0 * eps") + """let main db eps =
  let rec go k (bv : real) = if k <= 0 then return [bv]
                  else mlet x = lapMech (eps, count db) in
                       if x > bv then go (k - 1) NEXT else go (k - 1) bv in
  go 3 FIRST
"""


@pytest.mark.parametrize("text", [
    BEST.replace("NEXT", "x").replace("FIRST", "0.0"),
    BEST.replace("NEXT", "((x + bv) / 2.0)").replace("FIRST", "eps"),
    # a public real list walked: its elements are rational like the input
    walk(body="mlet x = lapMech (eps, count db) in mlet r = go rest in "
              "return ((if x > t then 1.0 else 0.0) :: r)"),
])
def test_a_local_parameter_every_call_passes_rational_is_compared(text):
    verified(text, "main")


@pytest.mark.parametrize("text", [
    BEST.replace("NEXT", "(sqrt (abs x))").replace("FIRST", "0.0"),   # a recursive call
    BEST.replace("NEXT", "x").replace("FIRST", "(sqrt 2.0)"),         # the first call
    BEST.replace("NEXT", "x").replace("FIRST", "(exp eps)"),
])
def test_a_local_parameter_some_call_passes_an_irrational_is_not_compared(text):
    not_verified(text, "main", "cannot always decide")


def test_the_kernel_refuses_a_local_parameter_taken_as_rational(monkeypatch):
    from obligations import decidable as D
    from verifier.rules import decidable
    text = BEST.replace("NEXT", "(sqrt (abs x))").replace("FIRST", "0.0")
    real = decidable.Decidability.tags

    def bug(patch):  # the builder reads every argument of a local function as rational
        def tags(self, value):
            found = real(self, value)
            return D.NO_TAGS if found is None else found
        patch.setattr(decidable.Decidability, "tags", tags)
    kernel_refuses(monkeypatch, text, "main", bug, "cannot always decide")
