"""Issue 26, a class met by natural programs: folds and maps with a function parameter, whose
claim (a sensitivity bound under ``adj``) is not inductive — where the heads differ and the
tails are equal, the two runs' recursive calls pass different functions, and the proof needs
them equal. ``LetRec-Induction-Eq`` proves the definition against its val strengthened by the
equality case (``verifier.language.strengthen``), which the kernel states itself. Programs that
must verify (their certificates accepted), twins that must not, and a builder bug the kernel
refuses on its own."""
from __future__ import annotations

import pytest

from test_reach import not_verified, verdicts, verified
from verify_helpers import kernel_refuses

UNIT = "0.0 <= y<1> /\\ y<1> <= 1.0 /\\ 0.0 <= y<2> /\\ y<2> <= 1.0"
EQ = "(x<1> = x<2> => y<1> = y<2>)"


def fold(step: str = "w x + fold w xs", weight: str = f"{EQ} /\\ {UNIT}",
         bound: str = "1.0") -> str:
    return f"""val fold :: ({{x :: bool | true}} -> {{y :: real | {weight}}})
         -> {{l :: bool list | adj (l<1>, l<2>)}} -> {{s :: real | abs (s<1> - s<2>) <= {bound}}}
let rec fold w l = match l with
  | [] -> 0.0
  | x :: xs -> {step}

val main :: {{l :: bool list | adj (l<1>, l<2>)}} -> {{eps :: real+ | =}} -> M[DP(eps)] {{r :: real | =}}
let main db eps = lapMech (eps, fold (fun b -> if b then 1.0 else 0.0) db)
"""


MAP = """val map :: ({x :: bool | true} -> {y :: bool | CODOMAIN})
        -> {l :: bool list | adj (l<1>, l<2>)} -> {m :: bool list | adj (m<1>, m<2>)}
let rec map f l = match l with
  | [] -> []
  | x :: xs -> f x :: map f xs

val main :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let main l eps = lapMech (eps, count (map (fun b -> not b) l))
"""

SUM_WITH = f"""val sumWith :: ({{x :: real | true}} -> {{y :: real | {EQ} /\\ {UNIT}}})
            -> {{l :: real list | adj (l<1>, l<2>)}} -> {{s :: real | abs (s<1> - s<2>) <= 1.0}}
let rec sumWith g xs = match xs with
  | [] -> 0.0
  | x :: rest -> g x + sumWith g rest

val clip :: {{x :: real | true}} -> {{y :: real | {EQ} /\\ {UNIT}}}
let clip x = max (0.0, min (1.0, x))

val main :: {{l :: real list | adj (l<1>, l<2>)}} -> {{eps :: real+ | =}} -> M[DP(eps)] {{s :: real | =}}
let main db eps = lapMech (eps, sumWith clip db)
"""


@pytest.mark.parametrize("text", [
    fold(),
    fold(step="fold w xs + w x"),
    MAP.replace("CODOMAIN", "x<1> = x<2> => y<1> = y<2>"),
    SUM_WITH,
])
def test_a_fold_with_a_function_parameter_is_proved_with_its_equality_case(text):
    found, claims = verdicts(text)
    assert set(found.values()) == {"verified"}, {n: c.failure for n, c in claims.items()}
    root = next(iter(claims.values())).derivation
    assert root.rule == "LetRec-Induction-Eq"


@pytest.mark.parametrize("text", [
    fold(weight=UNIT),                                       # the runs' functions may differ
    fold(weight=f"{EQ} /\\ {UNIT}".replace("1.0", "2.0")),   # increments up to 2
    fold(step="w x + 2.0 * fold w xs"),                      # a change deep in the list doubles
    MAP.replace("CODOMAIN", "true"),
])
def test_a_fold_whose_claim_is_false_is_not_proved(text):
    first = text.split()[1]
    not_verified(text, first)


def test_a_counter_of_a_value_that_may_differ_is_not_proved():
    text = """val cnt :: {c :: bool | true} -> {l :: bool list | adj (l<1>, l<2>)}
         -> {n :: real | abs (n<1> - n<2>) <= 1.0}
let rec cnt c l = match l with
  | [] -> 0.0
  | x :: xs -> (if x = c then 1.0 else 0.0) + cnt c xs
"""
    not_verified(text, "cnt")
    verified(text.replace("{c :: bool | true}", "{c :: bool | =}"), "cnt")


def test_the_kernel_refuses_a_strengthening_that_drops_the_claim(monkeypatch):
    from verifier.language import strengthen
    text = fold(weight=f"{EQ} /\\ {UNIT}".replace("1.0", "2.0"))  # fold's claim is false
    real = strengthen.equality_strengthened

    def bug(patch):  # the builder's strengthening keeps the equality case only
        patch.setattr(strengthen, "equality_strengthened",
                      lambda val: _equality_case_only(real(val)))
    kernel_refuses(monkeypatch, text, "fold", bug, "not proved")


# ---- the accumulator case (LetRec-Induction-Acc) ---------------------------------------------

def acc_fold(step: str = "acc + max (0.0, min (x, 2.0))", bound: str = "2.0",
             acc: str = "=", result: str = "abs (s<1> - s<2>) <= BOUND") -> str:
    return f"""val sumAcc :: {{acc :: real | {acc}}} -> {{l :: real list | adj (l<1>, l<2>)}}
            -> {{s :: real | {result.replace("BOUND", bound)}}}
let rec sumAcc acc l = match l with
  | [] -> acc
  | x :: rest -> sumAcc ({step}) rest

val main :: {{l :: real list | adj (l<1>, l<2>)}} -> {{eps :: real+ | =}} -> M[DP(eps)] {{r :: real | =}}
let main db eps = lapMech (eps / {bound}, sumAcc 0.0 db)
"""


@pytest.mark.parametrize("text", [
    acc_fold(),
    acc_fold(step="max (0.0, min (x, 2.0)) + acc"),
    acc_fold(result="abs (s<2> - s<1>) <= BOUND"),
    acc_fold(step="acc + (if x > 0.0 then 1.0 else 0.0)", bound="1.0"),
])
def test_an_accumulator_fold_is_proved_relative_to_its_accumulator(text):
    found, claims = verdicts(text)
    assert set(found.values()) == {"verified"}, {n: c.failure for n, c in claims.items()}
    assert claims["sumAcc"].derivation.rule == "LetRec-Induction-Acc"


@pytest.mark.parametrize("text", [
    acc_fold(bound="1.0"),                                        # steps up to 2, claimed 1
    acc_fold(step="2.0 * acc + max (0.0, min (x, 2.0))"),          # a difference doubles
    acc_fold(step="acc + x"),                                      # unclipped
    acc_fold(result="s<1> - s<2> <= BOUND /\\ s<1> >= 0.0"),       # reads s alone: no strengthening
])
def test_an_accumulator_fold_whose_claim_is_false_or_not_relative_is_not_proved(text):
    not_verified(text, "sumAcc")


def test_the_strengthening_needs_one_accumulator_refined_equal():
    from verifier.language.parser import parse_program
    from verifier.language.strengthen import accumulator_strengthened
    def strong(text):
        program = parse_program(text, "t.pinf")
        return accumulator_strengthened(program.find_val("sumAcc"), program.find_let("sumAcc"))
    assert strong(acc_fold()) is not None
    assert strong(acc_fold(acc="true")) is None          # not refined =: the val says it all
    two = acc_fold().replace("{acc :: real | =} ->", "{acc :: real | =} -> {k :: real | =} ->") \
        .replace("sumAcc acc l", "sumAcc acc k l").replace("sumAcc (", "sumAcc (k + 1.0) (") \
        .replace(") rest", ") rest").replace("sumAcc 0.0 db", "sumAcc 0.0 0.0 db")
    assert strong(two) is None                            # two parameters passed changed


def test_the_kernel_refuses_an_accumulator_strengthening_that_drops_the_equality_case(monkeypatch):
    from verifier.language import strengthen
    text = acc_fold(bound="1.0")   # false: a step moves the total by up to 2
    real = strengthen.accumulator_strengthened

    def bug(patch):  # the builder's strengthening keeps only the equality case, which proves nothing
        patch.setattr(strengthen, "accumulator_strengthened",
                      lambda val, decl: _equality_case_only(real(val, decl)))
    kernel_refuses(monkeypatch, text, "sumAcc", bug, "not proved")


def _equality_case_only(strong):
    """A strengthened val with its result's refinement cut to its last conjunct (the equality
    case): a builder bug that drops the written claim."""
    from obligations.records import replace
    from verifier.language import ast as A
    rt, doms = strong.rtype, []
    while isinstance(rt, A.RArrow):
        doms.append(rt.dom)
        rt = rt.cod
    rt = replace(rt, assertion=rt.assertion.right)
    for d in reversed(doms):
        rt = A.RArrow(d, rt, rt.span)
    return replace(strong, rtype=rt)
