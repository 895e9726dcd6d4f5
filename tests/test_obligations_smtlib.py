"""SMT-LIB export: standalone, deterministic, same verdict in z3 and cvc5."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import z3

from obligations import (BOOL, INT, REAL, FuncDecl, Obligation, ObligationKind, Provenance,
                         SmtLibError, SourceSpan, Verdict, add, and_, check_smtlib, discharge,
                         div, encode, eq, exp, forall, ge, gt, implies, le, log, lt, max_, mul,
                         parse_symbol, pi, real, sqrt, sub, to_smtlib, uninterpreted_sort, var,
                         write_smtlib_dir)

PROV = Provenance("gaussMech", "main/n7", "k * eps < 1 for the Gaussian mechanism",
                  SourceSpan("normal_input_gauss.pinf", 12, 3, 12, 40))
eps, x, y = var("eps", REAL), var("x", REAL), var("y", REAL)
a1, a2 = var("aPn", REAL, 1), var("aPn", REAL, 2)
RHO = sqrt(sub(1, div(pi(), 4)))
LB = uninterpreted_sort("List[bool]")
LR = uninterpreted_sort("List[real]")
LENGTH, LENGTH_R = FuncDecl("length", (LB,), INT), FuncDecl("length", (LR,), INT)
ADJ = FuncDecl("adj", (LB, LB), BOOL)
l1, l2, l = var("l", LB, 1), var("l", LB, 2), var("l", LB)


def ob(goal, hypotheses=(), axioms=()):
    return Obligation(kind=ObligationKind.SIDE_CONDITION, hypotheses=hypotheses, axioms=axioms,
                      goal=goal, provenance=PROV)


AX = {"ax_length_nonneg": forall(l, ge(LENGTH(l), 0))}
#: (obligation, expected verdict) pairs covering every logic the encoding produces
CASES = [
    (ob(lt(div(eps, 2), eps), {"h_eps_pos": gt(eps, 0)}), Verdict.VERIFIED),          # QF_LRA
    (ob(gt(x, 0)), Verdict.REFUTED),
    (ob(lt(RHO, real("0.47"))), Verdict.VERIFIED),                                     # QF_NRA
    (ob(lt(RHO, real("0.46"))), Verdict.REFUTED),
    (ob(le(mul(RHO, eps), mul(RHO, eps))), Verdict.VERIFIED),
    (ob(eq(a1, a2), {"h_eq": and_(le(a1, a2), ge(a1, a2))}), Verdict.VERIFIED),
    (ob(ge(max_(a1, 0), a1)), Verdict.VERIFIED),
    (ob(ge(mul(add(LENGTH(l1), 1), eps), 0), {"h_adj": ADJ(l1, l2), "h_eps_pos": gt(eps, 0)},
        AX), Verdict.VERIFIED),                                                        # UFNIRA
    # z3 has a model (nothing says a length is not negative), but no lists have those lengths
    (ob(ge(LENGTH_R(var("r", LR)), LENGTH(l1)), {"h_len": eq(LENGTH(l1), 0)}), Verdict.UNKNOWN),
    (ob(gt(log(x), 0), {"h_x": gt(x, 1)}), Verdict.VERIFIED),
    (ob(eq(exp(log(x)), x), {"h_x": gt(x, 0)}), Verdict.VERIFIED),
    (ob(forall(y, implies(gt(y, x), gt(exp(y), exp(x))))), Verdict.VERIFIED),          # UFNRA
    (ob(lt(mul(var("k", INT), eps), 1), {"h_k": eq(var("k", INT), 1),
                                         "h_eps": lt(eps, real("0.5"))}), Verdict.VERIFIED),
    (ob(gt(exp(real(1)), real("2.71828"))), Verdict.VERIFIED),                         # enclosure
    (ob(le(div(x, 0), div(x, 0))), Verdict.VERIFIED),   # x / 0: unspecified but a function
]


@pytest.mark.parametrize("obligation, verdict", CASES, ids=lambda c: getattr(c, "id", ""))
def test_both_solvers_agree_with_discharge(obligation, verdict):
    assert discharge(obligation).verdict == verdict
    text = to_smtlib(obligation)
    expected = "unsat" if verdict == Verdict.VERIFIED else "sat"
    assert check_smtlib(text, "z3") == expected
    assert _z3_parse_smt2_string(obligation, text) == expected
    cvc5 = check_smtlib(text, "cvc5")
    if expected == "sat" and obligation.vocabulary.functions:
        assert cvc5 in ("sat", "unknown")  # quantified axioms: cvc5 may not find the model
    else:
        assert cvc5 == expected


def _z3_parse_smt2_string(obligation, text):
    """Check via z3.parse_smt2_string: it returns each named assertion as an implication
    from a fresh literal carrying the name, and those literals must then be assumed."""
    ctx = z3.Context()
    parsed = list(z3.parse_smt2_string(text, ctx=ctx))
    literals = [f.arg(0) for f in parsed]
    assert all(z3.is_implies(f) for f in parsed)
    assert [str(n) for n in literals] == [a.name for a in encode(obligation).assertions]
    solver = z3.Solver(ctx=ctx)
    solver.add(parsed)
    return str(solver.check(*literals))


def test_script_layout():
    o = ob(lt(mul(RHO, eps), 1), {"h_eps_pos": gt(eps, 0), "h_eps_small": lt(eps, 2)})
    text = to_smtlib(o)
    lines = text.splitlines()
    assert lines[0] == f"; privinfer proof obligation {o.id}"
    assert "; rule: gaussMech   node: main/n7   at: normal_input_gauss.pinf:12:3-12:40" in lines
    assert "; k * eps < 1 for the Gaussian mechanism" in lines
    assert lines.index("(set-option :produce-unsat-cores true)") < lines.index("(set-logic QF_NRA)")
    assert "(declare-const |$eps| Real)" in lines and "(declare-const pi! Real) ; pi" in lines
    assert "(assert (! (> |$eps| 0.0) :named h_eps_pos))" in lines
    assert "(assert (! (and (< 3.14159265358979 pi!) (< pi! 3.1415926535898)) :named pi!bounds))" in lines
    assert "; x >= 0 => sqrt x >= 0 /\\ sqrt x * sqrt x = x" in lines
    assert "(assert (! (not (< (* sqrt!0 |$eps|) 1.0)) :named goal))" in lines
    assert lines[-2:] == ["(check-sat)", "(exit)"]


def test_symbols_are_sanitised_reversibly():
    o = ob(ge(LENGTH_R(var("r", LR)), LENGTH(l1)), {"h_run": gt(var("abs", REAL, 2), var("div", REAL))})
    text = to_smtlib(o)
    assert "(declare-sort |$List[bool]| 0)" in text
    assert "(declare-fun |$length:List[real]| (|$List[real]|) Int)" in text
    assert "(declare-fun |$length:List[bool]| (|$List[bool]|) Int)" in text
    assert "(declare-const |$abs<2>| Real)" in text and "(declare-const |$div| Real)" in text
    assert check_smtlib(text, "cvc5") in ("sat", "unknown")  # no clash with theory symbols
    assert parse_symbol("|$abs<2>|") == ("abs", 2) and parse_symbol("$div") == ("div", None)
    problem = encode(o)
    for v in o.free_vars:
        assert parse_symbol(problem.symbol(v)) == (v.name, v.run)
    with pytest.raises(ValueError):
        parse_symbol("pi!")


def test_logics():
    assert encode(CASES[0][0]).logic == "QF_LRA"
    assert encode(CASES[2][0]).logic == "QF_NRA"
    assert encode(CASES[7][0]).logic == "UFNIRA"
    assert encode(CASES[11][0]).logic == "UFNRA"
    assert encode(ob(eq(var("b", BOOL), True))).logic == "QF_UF"
    assert encode(ob(gt(div(x, 0), 1))).logic == "QF_NRA"  # cvc5: x / 0 is not linear


def test_export_is_deterministic_across_processes(tmp_path):
    obligations = [c[0] for c in CASES]
    here = [to_smtlib(o) for o in obligations]
    assert here == [to_smtlib(Obligation.from_json(o.to_json())) for o in obligations]
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import tests.test_obligations_smtlib as t\n"
        "from obligations import to_smtlib\n"
        "sys.stdout.write('\\x00'.join(to_smtlib(c[0]) for c in t.CASES))\n")
    root = str(Path(__file__).resolve().parent.parent)
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", script, root], capture_output=True,
                              text=True, env=env, cwd=root, check=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == "\x00".join(here)


def test_write_smtlib_dir(tmp_path):
    obligations = [c[0] for c in CASES[:3]]
    paths = write_smtlib_dir(obligations, tmp_path / "smt")
    assert [p.name for p in paths] == [f"{o.id}.smt2" for o in obligations]
    assert all(p.read_text() == to_smtlib(o) for p, o in zip(paths, obligations))
    with pytest.raises(ValueError):
        write_smtlib_dir([obligations[0], obligations[0]], tmp_path / "again")


def test_check_smtlib_errors_and_limits():
    with pytest.raises(SmtLibError):
        check_smtlib("(assert (> x 0))\n(check-sat)\n", "z3")
    with pytest.raises(SmtLibError):
        check_smtlib("(assert (> x 0))\n(check-sat)\n", "cvc5")
    with pytest.raises(SmtLibError):
        check_smtlib("(set-logic QF_LRA)\n", "z3")
    with pytest.raises(ValueError):
        check_smtlib("(check-sat)", "yices")
    hard = ("(set-logic QF_NIA)(declare-const x Int)(declare-const y Int)(declare-const z Int)"
            "(assert (and (> x 0) (> y 0) (> z 0) (= (+ (* x x x) (* y y y)) (* z z z))))"
            "(check-sat)")
    assert check_smtlib(hard, "z3", rlimit=1000) == "unknown"
    assert check_smtlib(hard, "cvc5", rlimit=1000) == "unknown"
