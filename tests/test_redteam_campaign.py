"""The red-team campaign's most instructive attacks (the full list: the campaign's summary).

Each program is not differentially private (or its claim is false); the comment beside it
names the two adjacent inputs and the output event that break the claim. The verifier must
not say "verified" of any of them, and the kernel must refuse the forged certificates below.

Classes found and fixed by the campaign:

1. **A while-program's guarantee was "(eps, delta)-DP" whatever its output relation.** The
   apRHL judgement ``|- (eps, 0) : P ==> Q`` is differential privacy of the output only when
   ``Q`` is ``=``; with ``Q`` = ``true``, or a relation of another variable, it holds of a
   procedure that returns its private list, and both the verifier and the kernel printed and
   accepted the guarantee "(eps, 0)-DP". The guarantee now names the judgement
   (``whilelang.spec_guarantee``), and the kernel refuses a certificate that records DP.
"""
from __future__ import annotations

import json

import pytest

import copy
import hashlib
from pathlib import Path

from checker import aprhl as aprhl_kernel
from checker import kernel
from checker.aprhl_certify import certificate as aprhl_certificate
from verifier.aprhl.commands import verify_file
from verifier.language import whilelang as W
from verifier.verification import VERIFIED
from verify_helpers import claims_and_certificate

ROOT = Path(__file__).resolve().parents[1]
APRHL = ROOT / "benchmarks" / "programs" / "aprhl"


def _while_reports(tmp_path, text):
    path = tmp_path / "attack.pwhile"
    path.write_text(text)
    reports, _ = verify_file(str(path))
    prog = W.parse_while_file(str(path))
    return reports, json.loads(json.dumps(aprhl_certificate(prog, reports, str(path))))


# ---- 1. output relations that are not equality ---------------------------------------------

NOT_EQUALITY = {
    # returns d itself; Q = true holds of every pair of runs: d<1> = [0.0] vs d<2> = [1.0]
    # are told apart by the output event {[0.0]} (probability 1 vs 0)
    "true": """proc P (d : real list) (pub eps : real+) : real list
  |- (eps, 0) : adj (d<1>, d<2>) ==> true
  return d
end
""",
    # Q speaks of the noisy z, the output is d: the same pair breaks DP of the output
    "other_variable": """proc P (d : real list) (pub eps : real+) : real list
  |- (eps, 0) : adj (d<1>, d<2>) ==> z<1> = z<2>
  z := $ Lap (1 / eps, 0);
  return d
end
""",
    # a shifted output relation: result<2> = result<1> + 1 at cost 0, the exact value of y
    # released: y<1> = 0, y<2> = 1 give disjoint outputs
    "shifted": """proc P (y : real) (pub eps : real+) : real
  |- (0, 0) : y<2> = y<1> + 1 ==> result<2> = result<1> + 1
  return y
end
""",
}


@pytest.mark.parametrize("name", sorted(NOT_EQUALITY))
def test_a_judgement_without_equal_outputs_is_no_privacy_guarantee(tmp_path, name):
    reports, cert = _while_reports(tmp_path, NOT_EQUALITY[name])
    [r] = reports
    assert "-DP" not in r.guarantee and "not differential privacy" in r.guarantee
    assert aprhl_kernel.check(cert).valid
    claim = cert["claims"][0]
    proc = W.parse_while(NOT_EQUALITY[name], "a.pwhile").procs[0]
    # the forged guarantee: differential privacy with respect to the precondition
    claim["guarantee"] = (f"{proc.name} is ({W.pretty_expr(proc.spec.eps)}, 0)-differentially "
                          f"private with respect to {W.pretty_expr(proc.spec.pre)}")
    outcome = aprhl_kernel.check(cert)
    assert not outcome.valid and "guarantee" in outcome.reason


# ---- 2. a loop that never ends: verify ends, and does not verify ---------------------------

NEVER_ENDS = {
    # the variant is not decreased: run 1 and run 2 never end (and d[0] is out of range at [])
    "draws": """proc P (d : real list) (pub eps : real+) : real
  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) ==> =
  i := 0;
  z := 0;
  while i < 10 variant 10 - i do
    z := $ Lap (1 / eps, d[0])
  end;
  return z
end
""",
    # the bound grows with the counter: the loop never ends
    "grows": """proc P (d : real list) (pub eps : real+) : real
  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) ==> =
  i := 0;
  r := [0];
  while i < size r do
    r := r ++ [0];
    i := i + 1
  end;
  z := $ Lap (1 / eps, 0);
  return z
end
""",
}


@pytest.mark.parametrize("name", sorted(NEVER_ENDS))
def test_a_loop_that_never_ends_is_not_verified_and_verify_ends(tmp_path, name):
    reports, _ = _while_reports(tmp_path, NEVER_ENDS[name])
    assert [r.verdict for r in reports] == ["unknown"]


# ---- the attacks: none is verified ----------------------------------------------------------

PINF = {
    # shadowing built-in: count scaled by 1000: [false] vs [true] shift 1000, loss 1000 eps
    'shadow_count_top': 'let count l = 1000.0 * count l\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = lapMech (eps, count db)\n',
    # shadowing built-in: user length is count: [false] vs [true] disjoint outputs
    'shadow_length_top': 'let length l = count l\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = return (length db > 0)\n',
    # shadowing built-in: local abs scales count by 1000
    'shadow_abs_local': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = let abs x = 0.0 - 1000.0 * x in lapMech (eps, abs (count db))\n',
    # shadowing built-in: min rebound as a parameter: 1000 * count
    'shadow_min_param': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = (fun min -> lapMech (eps, min (count db, 0.0))) (fun p -> 1000.0 * fst p)\n',
    # shadowing built-in: fst rebound to snd: releases 1000*count
    'shadow_fst_tuple': 'let fst p = snd p\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = lapMech (eps, fst (0.0, 1000.0 * count db))\n',
    # shadowing binder: noise 1000x smaller than claimed
    'shadow_eps_local': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = let eps = eps * 1000.0 in lapMech (eps, count db)\n',
    # shadowing built-in: helper wrapping return releases count>0
    'shadow_return': 'let ret x = return x\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = ret (count db > 0)\n',
    # tuples and patterns: b is the first component: count db > 0
    'tuple_pattern_swap': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = let (b, a) = (count db > 0, false) in return b\n',
    # tuples and patterns: mlet pattern releases b = count db > 0
    'mlet_tuple_pattern': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = mlet (a, b) = return (false, count db > 0) in return b\n',
    # partial operation: [false]: division by zero (no output), [true]: outputs: halts vs not
    'div_zero_private': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = lapMech (eps, 1.0 / (count db))\n',
    # partial operation: log 0 undefined at [false]
    'log_zero_private': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = lapMech (eps, log (count db))\n',
    # partial operation: sqrt of -1 at [false]
    'sqrt_neg_private': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = lapMech (eps, sqrt (count db - 1.0))\n',
    # partial operation: [true] crashes (length-count = 0), [false] returns true
    'div_zero_discarded_mlet': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = mlet u = return (1.0 / (length db - count db)) in return true\n',
    # float rounding: 0.30000000000000000001 > 0.3: loss exceeds 0.3 (if read as float = 0.3 then false verified)
    'float_literal_long': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.3)] {c :: real | =}\nlet main db = lapMech (0.30000000000000000001, count db)\n',
    # recursion: f loops on any k not a multiple of 1e-400; main: f(count) - f(0) = 0 halts ... f(1) after 1e400 steps
    'counter_tiny_step': 'val f :: {k :: real | =} -> {r :: real | r<1> = r<2>}\nlet rec f k = if k = 0.0 then 0.0 else f (k - 1e-400)\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = return (f (count db) > 0.0)\n',
    # recursion: f loops at 0.5 ([true]), halts at 0 ([false])
    'counter_real_loop': 'val f :: {k :: real | true} -> {r :: real | r<1> = r<2>}\nlet rec f k = if k = 0.0 then 0.0 else f (k - 1.0)\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = return (f (count db / 2.0) > 0.0)\n',
    # recursion: f loops on negative k: [true] loops, [false] halts
    'counter_int_eq_zero': 'val f :: {k :: int | true} -> {r :: real | r<1> = r<2>}\nlet rec f k = if k = 0 then 0.0 else f (k - 1)\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = return (f (0 - count db) > 0.0)\n',
    # recursion: [true] diverges, [false] returns true
    'local_rec_nonterm': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = let rec g x = g x in if count db > 0 then return (g 0 > 0) else return true\n',
    # infer/ran: mean of inferred Laplace = 1000*count exactly
    'infer_mean_of_lap': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = lapMech (eps, mean (infer (lapMech (eps, 1000.0 * count db))))\n',
    # mechanism parameters: negative eps charged -5: total 1 but lapMech alone costs 6
    'expmech_negative_eps': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool * real | =}\nlet main db = mlet a = expMech (0.0 - 5.0, fun p -> if snd p then count (fst p) else 0.0, db) in mlet b = lapMech (6.0, count db) in return (a, b)\n',
    # mechanism parameters: Gaussian needs eps < 1
    'gauss_eps_ge_1': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(5.0), 0.01] {r :: real | =}\nlet main db = gaussMech (5.0, 0.01, count db)\n',
    # Gaussian: delta (noise scale) depends on data
    'gauss_delta_private': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.5), 0.01] {r :: real | =}\nlet main db = gaussMech (0.5, 0.01 + count db / 1000.0, count db)\n',
    # adjacency: adj(l1,l1) constrains nothing: [] vs [true;true;...]
    'adj_same_run': 'val main :: {l :: bool list | adj (l<1>, l<1>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = lapMech (eps, count db)\n',
    # adjacency: l unconstrained (adj about m)
    'adj_other_param': 'val main :: {m :: bool list | =} -> {l :: bool list | adj (m<1>, m<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main m db eps = lapMech (eps, count db)\n',
    # claims: eps differs in the runs: noise scale different
    'eps_param_not_equal': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | true} -> M[DP(eps)] {c :: real | =}\nlet main db eps = lapMech (eps, count db)\n',
    # binders: last definition of main leaks
    'val_before_two_defs': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = return true\nlet main db = return (count db > 0)\n',
    # recursion: f loops when count l > 1 via alias h = f; [true;true] loops, [true;false] halts
    'hidden_rec_alias': 'val f :: {l :: bool list | adj (l<1>, l<2>)} -> {r :: real | r<1> = r<2>}\nlet rec f l = match l with\n  | [] -> 0.0\n  | x :: xs -> if count l > 1 then (let h = f in h l) else 0.0\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = return (f db > 1.0)\n',
    # recursion/higher-order: recursive call through helper apply, not shorter: loops at count > 1
    'hidden_rec_apply': 'let apply g x = g x\nval f :: {l :: bool list | adj (l<1>, l<2>)} -> {r :: real | r<1> = r<2>}\nlet rec f l = match l with\n  | [] -> 0.0\n  | x :: xs -> if count l > 1 then apply f l else 0.0\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = return (f db > 1.0)\n',
    # recursion/tuples: recursive call in a tuple component
    'hidden_rec_tuple': 'val f :: {l :: bool list | adj (l<1>, l<2>)} -> {r :: real | r<1> = r<2>}\nlet rec f l = match l with\n  | [] -> 0.0\n  | x :: xs -> if count l > 1 then fst (f l, 0.0) else 0.0\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = return (f db > 1.0)\n',
    # recursion: f (true :: xs) loops when head is true: [true] loops, [false] halts
    'rec_cons_loop': 'val f :: {l :: bool list | adj (l<1>, l<2>)} -> {r :: real | r<1> = r<2>}\nlet rec f l = match l with\n  | [] -> 0.0\n  | x :: xs -> if x then f (true :: xs) else 0.0\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = return (f db > 1.0)\n',
    # recursion (local): g loops at a true: [true] loops, [false] halts
    'local_rec_count_loop': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = let rec g l = match l with | [] -> 0.0 | x :: xs -> if x then g l else g xs in return (g db > 0.0)\n',
    # exponential mechanism: score reads db through closure; x = () equal: sensitivity 1000
    'expmech_closure_score': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = expMech (1.0, fun p -> if snd p then 1000.0 * count db else 0.0, ())\n',
    # exponential mechanism: candidate list from data: output count db > 0 exactly
    'expmech_candidates_private': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = expMech (1.0, fun p -> 0.0, db, [count db > 0])\n',
    # finite laws: loss log 9 = 2.19722 > 2.1972 at [false] vs [true], output true
    'bernoulli_private_rr': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(2.1972)] {r :: bool | =}\nlet main db = mlet x = ran (bernoulli (if count db > 0 then 0.9 else 0.1)) in return x\n',
    # finite laws: [false] P(true)=0, [true] P(true)=1/2: infinite loss
    'uniform_threshold': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = mlet u = ran (uniform ()) in return (u < count db / (length db + 1))\n',
    # higher-order: two calls of a 0.5-DP mechanism: 1.0 (e.g. m = lapMech(0.5, count))
    'ho_param_twice': 'val twice :: ({l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.5)] {r :: real | =}) -> {l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.5)] {r :: real | =}\nlet twice m db = mlet a = m db in mlet b = m db in return (a + b)\n',
    # higher-order: g used twice: sensitivity 2
    'ho_pure_param_sens': 'val rel :: ({x :: real | true} -> {y :: real | abs (y<1> - y<2>) <= abs (x<1> - x<2>)}) -> {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: real | =}\nlet rel g db = lapMech (1.0, g (count db) + g (count db))\n',
    # higher-order: mk returns a function reading db: claims equal results
    'ho_fun_result': 'val mk :: {l :: bool list | adj (l<1>, l<2>)} -> {x :: real | =} -> {r :: real | r<1> = r<2>}\nlet mk db = fun x -> x + count db\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = return (mk db 0.0 > 0.0)\n',
    # Delta assertions: HD 0.01 (H^2) allows TV 0.14: bernoulli 0.5 vs 0.64 ... delta 0.01 false
    'delta_hd_as_sd': 'val rel :: {d :: D[bool] | Delta[HD] (d<1>, d<2>) <= 0.01} -> M[DP(0.0), 0.01] {r :: bool | =}\nlet rel d = ran d\n',
    # Delta assertions: assumption 2-DP, claims 1-DP
    'delta_dp_eps': 'val rel :: {d :: D[bool] | Delta[DP(2.0)] (d<1>, d<2>) <= 0.0} -> M[DP(1.0)] {r :: bool | =}\nlet rel d = ran d\n',
    # Delta assertions: two draws: TV up to 0.19
    'delta_sd_twice': 'val rel :: {d :: D[bool] | Delta[SD] (d<1>, d<2>) <= 0.1} -> M[DP(0.0), 0.1] {r :: bool * bool | =}\nlet rel d = mlet a = ran d in mlet b = ran d in return (a, b)\n',
    # Delta assertions: Jeffreys prior: H = 0.603 > 0.463 (NOTES §1); H^2 = 0.36 > 0.22
    'delta_result_beta_small': 'val post :: {l :: bool list | adj (l<1>, l<2>)} -> {d :: D[[0,1]] | Delta[HD] (d<1>, d<2>) <= 0.22}\nlet post db = beta (0.5 + count db, 0.5 + length db - count db)\n',
    # infer/observe: posterior beta(2,1) vs beta(1,2) drawn exactly: ratio of densities unbounded near 0: infinite loss
    'infer_observe_private_bias': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: [0,1] | =}\nlet main db = ran (infer (observe (fun r -> mlet z = ran (bernoulli r) in return (count db > 0 = z)) (ran (beta (1.0, 1.0)))))\n',
    # integer/real: [3] element moves by 2: loss 2
    'fin_type_overflow': 'val main :: {l :: [3] list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: real | =}\nlet main db = match db with | [] -> lapMech (1.0, 0.0) | x :: xs -> lapMech (1.0, x)\n',
    # claims: quantifiers: exists k: any two lists of equal length: [] ... [false;false] vs [true;true] loss 2 eps
    'exists_adjacency': 'val main :: {l :: bool list | exists k : int. dist (l<1>, l<2>) <= k} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = lapMech (eps, count db)\n',
    # claims: connectives: lists of different lengths allowed: [] vs [true;true] loss 2 eps
    'negated_adj': 'val main :: {l :: bool list | ~ (~ adj (l<1>, l<2>)) \\/ ~ (length l<1> = length l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = lapMech (eps, count db)\n',
    # shadowing binder: local safe shadows the verified safe: releases count exactly
    'local_val_shadow': 'val safe :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet safe db eps = lapMech (eps, count db)\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = let safe = fun d e -> return (count d) in safe db eps\n',
    # shadowing binder: pattern binds eps to the head; 1000 shift at eps 1
    'match_shadow_head': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = match db with | [] -> lapMech (eps, 0.0) | eps :: xs -> lapMech (1.0, if eps then 1000.0 else 0.0)\n',
    # shadowing binder: mlet rebinds eps to 1000 eps
    'mlet_shadow_eps': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = mlet eps = return (eps * 1000.0) in lapMech (eps, count db)\n',
    # infer of a mechanism: the probability of the mechanism's output is a deterministic function of count: released exactly
    'expmech_infer': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: bool | =}\nlet main db = return (mean (infer (expMech (1.0, fun p -> if snd p then count (fst p) else 0.0, db))) > 0.5)\n',
    # built-ins on distributions: length of posteriors = 2count+1: sensitivity 2
    'posteriors_private_n': 'val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {r :: real | =}\nlet main db = lapMech (1.0, length (posteriors (beta (1.0, 1.0), 2 * count db)))\n',
}

PWHILE = {
    # while: adjacency: adjWithin with c<0 holds for equal lists; w unconstrained: w=0 vs 100, loss 100 eps
    'pw_adjwithin_neg': 'proc P (d : real list) (w : real) (pub eps : real+) : real\n  |- (eps, 0) : adjWithin (d<1>, d<2>, 0 - 1) ==> =\n  z := $ Lap (1 / eps, w);\n  return z\nend\n',
    # while: adjacency: allWithin with c<0 holds for empty lists; w unconstrained
    'pw_allwithin_neg': 'proc P (q : real list) (w : real) (pub eps : real+) : real\n  |- (eps, 0) : allWithin (q<1>, q<2>, 0 - 1) ==> =\n  z := $ Lap (1 / eps, w);\n  return z\nend\n',
    # while: adjacency: at empty lists w differs by 100 (if the encoding leaves out equal/empty lists)
    'pw_adj_empty': 'proc P (d : real list) (w : real) (pub eps : real+) : real\n  |- (eps, 0) : adj (d<1>, d<2>) /\\ (size d<1> = 0 => w<1> = w<2> + 100) ==> =\n  z := $ Lap (1 / eps, w);\n  return z\nend\n',
    # while: arrays: index out of range
    'pw_index_oob': 'proc P (d : real list) (pub eps : real+) : real\n  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) ==> =\n  z := $ Lap (1 / eps, d[size d]);\n  return z\nend\n',
    # while: arrays: branch on private + index by private
    'pw_index_private': 'proc P (d : int list) (pub eps : real+) : real\n  |- (eps, 0) : adj (d<1>, d<2>) /\\ size d<1> = 3 ==> =\n  z := $ Lap (1 / eps, 0);\n  if d[0] >= 0 && d[0] < 3 then x := d[d[0]] else x := 0 end;\n  return x\nend\n',
    # while: loops: guard on d[0]: invariant annotation i<1> = i<2> false; loop count leaks
    'pw_loop_private_guard': 'proc P (d : int list) (pub eps : real+) : int\n  |- (eps, 0) : adj (d<1>, d<2>) /\\ size d<1> = 1 ==> =\n  i := 0;\n  while i < d[0] invariant i<1> = i<2> do\n    i := i + 1\n  end;\n  return i\nend\n',
    # while: invariants: written invariant s<1>=s<2> false after the differing position; s returned exactly
    'pw_invariant_false': 'proc P (d : real list) (pub eps : real+) : real\n  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) ==> =\n  i := 0;\n  s := 0;\n  while i < size d invariant s<1> = s<2> do\n    s := s + d[i];\n    i := i + 1\n  end;\n  return s\nend\n',
    # while: loops: halts iff d[0] <> 0
    'pw_nonterm_private': 'proc P (d : int list) (pub eps : real+) : int\n  |- (eps, 0) : adj (d<1>, d<2>) /\\ size d<1> = 1 ==> =\n  r := 0;\n  if d[0] = 0 then r := 1 end;\n  while r = 1 do skip end;\n  return 0\nend\n',
    # while: partial: mod with non-positive divisor k
    'pw_mod_neg': 'proc P (d : int list) (pub eps : real+) (pub k : int) : real\n  |- (eps, 0) : adj (d<1>, d<2>) ==> =\n  z := $ Lap (1 / eps, 3 mod k);\n  return z\nend\n',
    # while: shift: shift mentions private data; sensitivity 1000
    'pw_shift_private': 'proc P (d : real list) (pub eps : real+) : real\n  |- (eps, 0) : adjWithin (d<1>, d<2>, 1000) /\\ size d<1> = 1 ==> =\n  z := $ Lap (1 / eps, d[0]) shift (0 - d[0]);\n  return z\nend\n',
    # while: Lap: private scale
    'pw_lap_private_scale': 'proc P (d : real list) (pub eps : real+) : real\n  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) /\\ size d<1> = 1 ==> =\n  z := $ Lap (1 / eps + d[0] * d[0], 0);\n  return z\nend\n',
    # while: claim: eps may be 0 or negative: claim (eps,0) for eps = -1 false
    'pw_eps_negative': 'proc P (d : real list) (pub eps : real) : real\n  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) /\\ size d<1> = 1 ==> =\n  z := $ Lap (1, d[0]);\n  return z\nend\n',
    # while: binders: uninitialised r
    'pw_uninit': 'proc P (d : real list) (pub eps : real+) : real\n  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) ==> =\n  if size d > 100 then r := 1 end;\n  return r\nend\n',
    # while: RNM: query 0 not noised: compared exactly
    'pw_rnm_first_free': 'proc RNM (q : real list) (pub eps : real+) : int\n  |- (eps, 0) : allWithin (q<1>, q<2>, 1) /\\ eps >= 1 / 1000 ==> =\n  best := 0;\n  bv := q[0];\n  i := 1;\n  while i < size q do\n    x := $ Lap (2 / eps, q[i]);\n    if x > bv then\n      best := i;\n      bv := x\n    end;\n    i := i + 1\n  end;\n  return best\nend\n',
    # while: mod: each element summed twice: sensitivity 2
    'pw_mod_index': 'proc P (d : real list) (pub eps : real+) (pub k : int) : real\n  |- (eps, 0) : adjWithin (d<1>, d<2>, 1) /\\ size d<1> = 3 /\\ k > 0 ==> =\n  s := 0;\n  i := 0;\n  while i < 6 do\n    s := s + d[i mod 3];\n    i := i + 1\n  end;\n  z := $ Lap (1 / eps, s);\n  return z\nend\n',
    # while: shift: shift 0 written: outputs not equal when the centers differ; loss eps > eps/2
    'pw_shift_wrong_written': 'proc P (d : real list) (pub eps : real+) : real\n  |- (eps / 2, 0) : adjWithin (d<1>, d<2>, 1) /\\ size d<1> = 1 /\\ eps >= 1 / 1000 ==> =\n  z := $ Lap (1 / eps, d[0]) shift 0;\n  return z\nend\n',
    # while: Lap-Case: two comparisons each 1 eps: 2 eps total
    'pw_lap_case_reads_later': 'proc P (q : real list) (pub t : real) (pub eps : real+) : int\n  |- (eps, 0) : allWithin (q<1>, q<2>, 1) /\\ size q<1> = 1 /\\ eps >= 1 / 1000 ==> =\n  x := $ Lap (1 / eps, q[0]);\n  if x >= t then r := 1 else r := 0 end;\n  y := $ Lap (1 / eps, q[0]);\n  if y >= t then r := r + 2 end;\n  return r\nend\n',
    # while: guards: branch on private bit
    'pw_not_guard': 'proc P (d : bool list) (pub eps : real+) : real\n  |- (eps, 0) : adj (d<1>, d<2>) /\\ size d<1> = 1 ==> =\n  z := 0;\n  if not (not d[0]) then z := $ Lap (1 / eps, 1) else z := $ Lap (1 / eps, 0) end;\n  return z\nend\n',
}


@pytest.mark.parametrize("name", sorted(PINF))
def test_no_attack_on_the_functional_language_is_verified(name):
    claims, _ = claims_and_certificate(PINF[name])
    # the attacked claim: main where there is one (a helper's own val may be true)
    attacked = [claims["main"]] if "main" in claims else list(claims.values())
    assert all(c.verdict != VERIFIED for c in attacked), name


@pytest.mark.parametrize("name", sorted(PWHILE))
def test_no_attack_on_the_while_language_is_verified(tmp_path, name):
    reports, _ = _while_reports(tmp_path, PWHILE[name])
    assert all(r.verdict != VERIFIED for r in reports), name


# ---- forged certificates ----------------------------------------------------------------------

def _resigned(cert, text):
    cert["source"]["text"] = text
    cert["source"]["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    return cert


SWAPS = [
    # the count of the public list swapped for the private one (same spans, re-signed):
    # 9 * count db at eps, loss 9 eps at [false] vs [true]
    ("val main :: {p :: bool list | =} -> {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =}"
     " -> M[DP(eps)] {c :: real | =}\nlet main pb db eps = lapMech (eps, 9.0 * count pb)\n",
     "count pb", "count db"),
    # an if on a public count made an if on the private one: [false] vs [true] disjoint outputs
    ("val main :: {p :: bool list | =} -> {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] "
     "{c :: bool | =}\nlet main pb db = if count pb > 0 then return true else return false\n",
     "count pb > 0", "count db > 0"),
    # length (equal under adj) released exactly, swapped for count (padded to the same spans)
    ("val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(1.0)] {c :: bool | =}\n"
     "let main db = return (length db > 0)\n", "length db", "count  db"),
    # the claim rewritten to half the cost (statement and source agree, re-signed)
    ("val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(2.0 * eps)] "
     "{c :: real | =}\nlet main db eps = lapMech (eps, 2.0 * count db)\n", "DP(2.0 * eps)",
     "DP(1.0 * eps)"),
]


@pytest.mark.parametrize("good, old, new", SWAPS)
def test_a_verified_derivation_under_an_edited_source_is_refused(good, old, new):
    claims, cert = claims_and_certificate(good)
    assert claims["main"].verdict == VERIFIED
    cert = _resigned(cert, good.replace(old, new))
    cert["claims"][0]["statement"] = cert["claims"][0]["statement"].replace(old, new)
    assert not kernel.check(cert).valid


def test_a_claim_resting_on_a_helper_labelled_unknown_is_refused():
    """An honest "unknown" for the helper f; main, verified through f's val, must not stand."""
    text = ("val f :: {l :: bool list | adj (l<1>, l<2>)} -> {r :: real | abs (r<1> - r<2>) <= 1.0}\n"
            "let f l = count l\nval main :: {l :: bool list | adj (l<1>, l<2>)} -> "
            "{eps :: real+ | =} -> M[DP(eps)] {c :: real | =}\nlet main db eps = lapMech (eps, f db)\n")
    _, cert = claims_and_certificate(text)
    cert = _resigned(cert, text.replace("let f l = count l", "let f l = 9.0*count l"))
    [f] = [c for c in cert["claims"] if c["name"] == "f"]
    f.update(verdict="unknown", root=None, failure="forged", code="V004")
    cert["nodes"] = [n for n in cert["nodes"] if not n["id"].startswith("f/")]
    outcome = kernel.check(cert)
    assert not outcome.valid and "not verified" in outcome.reason


@pytest.mark.parametrize("file, old, new", [
    # Report Noisy Max at scale 1 / eps: loss above eps (mistakes/rnm_noise_too_small)
    ("report_noisy_max.pwhile", "2 / eps", "1 / eps"),
    # DummySum charged eps for all n releases
    ("dummy_sum.pwhile", "(eps * n, 0)", "(eps * 1, 0)"),
])
def test_a_while_certificate_under_a_weakened_source_is_refused(file, old, new):
    path = APRHL / file
    prog = W.parse_while_file(str(path))
    reports, ok = verify_file(str(path))
    assert ok
    cert = json.loads(json.dumps(aprhl_certificate(prog, reports, str(path))))
    text = cert["source"]["text"]
    assert old in text
    forged = copy.deepcopy(cert)
    forged["source"]["text"] = text.replace(old, new)
    for claim in forged["claims"]:
        claim["statement"] = claim["statement"].replace(old, new)
    assert not aprhl_kernel.check(forged).valid
