"""Red-team round 6 (tests/redteam6_attacks/README.md): the attacked claims of the round's
programs stay unverified, probes of true claims keep their verdict, and the finding's fix —
``run`` evaluates a release without the limits that private data could reach on one input and
not on its neighbour — is tested on its repros (r04, r08, w05) and on its twin (the limits
still stop runs that are not releases)."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from verify_helpers import functional_attack_not_verified, while_attack_not_verified, load_module

from verifier.errors import PrivInferError
from verifier.language.parser import parse_program
from verifier.language.typecheck import typecheck_program

ATTACKS = Path(__file__).resolve().parent / "redteam6_attacks"

#: the claims each functional attack attacks (its other vals may be true and verified)
ATTACKED = {
    "c02_noise_difference_fraction": {"main"},
}
#: true claims the verifier leaves unknown: never refuted (a refutation must be confirmed in the
#: semantics; these are tight or need reasoning the rules lack)
OPEN = {"a04_acc_max_step", "c01_noise_difference_count", "c09_index_sentinel_reachable",
        "f04_tight_log_exp", "f06_tight_loss_exp"}
#: true claims, verified: tight losses (never refuted), values run cannot produce (an infinite
#: real+inf, a negative nat), and the repros of the finding (true of the semantics; run now
#: releases on every input, the limits lifted)
PROBES = {"f01_tight_nonlinear_count", "f02_tight_thirds", "f03_tight_two_releases",
          "f05_tight_sqrt_square", "c08_index_counter_spelled_equal",
          "r01_run_nat_param_negative", "r07_realinf_parameter",
          "r04_run_step_budget_leak", "r08_run_infer_limit_leak",
          "w03_stop_overwritten", "w05_run_step_budget_onesided"}
#: refused before verification (a type or scope error)
REFUSED = {"r09_run_dist_lengths"}


@pytest.mark.parametrize("path", sorted(ATTACKS.glob("*.pinf")), ids=lambda p: p.stem)
def test_no_functional_attack_is_verified(path):
    functional_attack_not_verified(path, ATTACKED, REFUSED, PROBES, OPEN)


@pytest.mark.parametrize("path", sorted(ATTACKS.glob("*.pwhile")), ids=lambda p: p.stem)
def test_no_while_attack_is_verified(path):
    while_attack_not_verified(path, set(), PROBES)


# ---- the finding: run's limits on private data (r04, r08, w05) -------------------------------

def _run(stem: str, args, source):
    from verifier.semantics.entry import run_program
    path = ATTACKS / f"{stem}.pinf"
    program = parse_program(path.read_text(), path.name)
    return run_program(program, typecheck_program(program), "main", args, [], source)


def _secure():
    from verifier.semantics.noise import secure_source
    return secure_source()


def _seeded():
    from verifier.semantics.noise import seeded_source
    return seeded_source(6)


def _trues(n: int, length: int) -> str:
    return "l=[" + "; ".join(["true"] * n + ["false"] * (length - n)) + "]"


def test_a_release_is_not_stopped_by_the_exact_enumerations_limits():
    """r08: d (the law of count l fair coins) is computed and unused; the release is lapMech
    (eps, count l), verified. 12 trues enumerate within MAX_WORK, 13 do not: run stopped with
    R009 on [true x 13] and released on its neighbour [true x 12; false]. A release now runs
    to its end on both."""
    for n in (12, 13):
        result = _run("r08_run_infer_limit_leak", [_trues(n, 13), "eps=1.0"], _secure())
        assert result.kind == "sample" and result.releasable


def test_a_run_that_is_not_a_release_keeps_the_enumerations_limits():
    """The twin: a reproducible run (--seed) of the same input still stops with R009."""
    with pytest.raises(PrivInferError) as info:
        _run("r08_run_infer_limit_leak", [_trues(13, 13), "eps=1.0"], _seeded())
    assert info.value.first.code == "R009"
    _run("r08_run_infer_limit_leak", [_trues(12, 13), "eps=1.0"], _seeded())


def test_a_release_is_not_stopped_by_the_step_budget(monkeypatch, capsys):
    """r04: burn k runs only when count l > 0 and returns 0, so the release is lapMech (eps,
    count l), verified. With a step budget between the two runs' work (here 2,000 steps, burn
    3,000 deep), run stopped with R010 on [true] and released on [false]; a release now runs to
    its end on both, while a reproducible run keeps the budget."""
    import verifier.semantics.evaluator as evaluator_module
    monkeypatch.setattr(evaluator_module, "STEP_BUDGET", 2_000)
    for l in ("l=[true]", "l=[false]"):
        result = _run("r04_run_step_budget_leak", [l, "k=3000", "eps=1.0"], _secure())
        assert result.kind == "sample"
    # past the budget a release says, once, on standard error, that it runs to its end
    assert capsys.readouterr().err.count("the release has run more than 2000 steps") == 1
    _run("r04_run_step_budget_leak", ["l=[false]", "k=3000", "eps=1.0"], _seeded())
    with pytest.raises(PrivInferError) as info:
        _run("r04_run_step_budget_leak", ["l=[true]", "k=3000", "eps=1.0"], _seeded())
    assert info.value.first.code == "R010"


def test_a_release_is_not_stopped_by_the_recursion_cap(monkeypatch):
    """r04 again, with the recursion cap (10^6 nested calls at k = 3 000 000) lowered so that
    burn's recursion reaches it: R010 on [true] for a reproducible run, a release for the
    secure source."""
    import verifier.semantics.values as values_module
    monkeypatch.setattr(values_module, "RECURSION_LIMIT", 20_000)
    with pytest.raises(PrivInferError) as info:
        _run("r04_run_step_budget_leak", ["l=[true]", "k=30000", "eps=1.0"], _seeded())
    assert info.value.first.code == "R010" and "nests deeper" in info.value.first.message
    result = _run("r04_run_step_budget_leak", ["l=[true]", "k=30000", "eps=1.0"], _secure())
    assert result.kind == "sample"


def _while_steps(d, source, max_steps):
    from verifier.aprhl.run import Evaluator
    from verifier.language import whilelang as W
    path = ATTACKS / "w05_run_step_budget_onesided.pwhile"
    prog = W.parse_while_file(str(path))
    types = W.check_program(prog)
    proc = prog.proc("CountPositive")
    ev = Evaluator(proc, types[proc.name], source, max_steps=max_steps)
    ev.run({"d": [Fraction(x) for x in d], "eps": Fraction(1)})
    return ev.steps


def test_a_while_release_is_not_stopped_by_the_step_budget(capsys):
    """w05 (verified; count_positive_branch's shape): the one-sided branch executes one more
    statement per positive entry, so adjacent lists take different numbers of steps. With the
    budget at the smaller count, a reproducible run stops with R010 on [1, 0, 0] and not on
    [0, 0, 0]; a release runs to its end on both."""
    zero, one = [0, 0, 0], [1, 0, 0]
    few = _while_steps(zero, _seeded(), 10 ** 9)
    assert _while_steps(one, _seeded(), 10 ** 9) > few
    _while_steps(zero, _seeded(), few)
    with pytest.raises(PrivInferError) as info:
        _while_steps(one, _seeded(), few)
    assert info.value.first.code == "R010"
    capsys.readouterr()
    for d in (zero, one):
        _while_steps(d, _secure(), few)
    assert capsys.readouterr().err.count(f"the release has run more than {few} steps") == 1


# ---- forged certificates (redteam6_attacks/forge.py) -----------------------------------------

FORGE = load_module(ATTACKS / "forge.py", "redteam6_forge")


@pytest.mark.parametrize("name", sorted(FORGE.FORGERIES))
def test_forged_certificates_are_refused(name):
    cert, why = FORGE.FORGERIES[name]()
    valid, reason = FORGE.check(cert)
    assert not valid, (name, why)
