"""Certificates (``privinfer verify --certificate``) and their kernel (``privinfer check``).

Every shared example's certificate checks; a mutation suite — editing a guarantee, an index,
a formula, a lemma instantiation, a solver result, a source byte; deleting or reordering
nodes — makes the kernel fail every time, naming what is wrong; certificates are
deterministic; the kernel imports nothing of the derivation builder.
"""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from checker import kernel
from checker.certify import certificate, dumps
from obligations import terms as T
from obligations.smtlib import check_smtlib
from verifier.language.parser import parse_file
from verifier.language.typecheck import typecheck_program
from verifier.verification import verify_program

ROOT = Path(__file__).resolve().parent.parent
SHARED = sorted(p for d in ("paper", "course", "negative")
                for p in (ROOT / "benchmarks" / "programs" / d).glob("*.pinf"))
HELLINGER = ROOT / "tests" / "programs" / "hellinger_mech.pinf"
_CACHE: dict = {}


def cert_of(path: Path) -> dict:
    """The certificate of ``path`` (named relative to the repository), made once per module."""
    if path not in _CACHE:
        program = parse_file(str(path.relative_to(ROOT)))
        report = verify_program(program, typecheck_program(program))
        _CACHE[path] = (json.loads(dumps(certificate(report, program.source, program.file))),
                        report)
    return copy.deepcopy(_CACHE[path][0])


def check(cert: dict) -> kernel.Outcome:
    return kernel.check(cert)


def invalid(cert: dict, *words: str) -> str:
    """Check that ``cert`` is invalid and that the reason names every one of ``words``."""
    outcome = check(cert)
    assert not outcome.valid, "the mutated certificate still checks"
    for w in words:
        assert w in outcome.reason, outcome.reason
    return outcome.reason


def node(cert: dict, rule: str, claim: str = None) -> dict:
    return next(n for n in cert["nodes"] if n["rule"] == rule
                and (claim is None or n["id"].startswith(claim + "/")))


def record(cert: dict, oid: str) -> dict:
    return next(o for o in cert["obligations"] if o["id"] == oid)


def real(value: str) -> dict:
    return T.term_to_json(T.real(value))


# ---- every shared example ------------------------------------------------------------------

@pytest.mark.parametrize("path", SHARED + [HELLINGER], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_certificates_of_the_shared_examples_check(path):
    cert = cert_of(path)
    outcome = check(cert)
    assert outcome.valid, outcome.reason
    report = _CACHE[path][1]
    assert [(c["name"], c["verdict"]) for c in outcome.claims] == [
        (c.name, c.verdict) for c in report.claims]


def test_a_verified_certificate_states_the_guarantee_and_the_trust_base():
    cert = cert_of(ROOT / "benchmarks/programs/paper/beta_output_hellinger.pinf")
    main = next(c for c in cert["claims"] if c["name"] == "main")
    assert main["guarantee"]["statement"].startswith("main :: {l :: bool list | adj (l<1>, l<2>)}")
    assert T.pretty(T.term_from_json(main["guarantee"]["index"]["eps"])) == \
        "sqrt (1.0 - pi / 4.0) * eps"
    base = cert["trust_base"]
    assert base["solvers"][0]["name"] == "z3"
    assert "literature:mech.exponential" in base["theorems"]
    assert "literature:hellinger.triangle" in base["theorems"]
    assert {"id": "beta.hellinger.adjacent.rho", "status": "proved"} in base["lemmas"]
    assert all(o["smtlib"].startswith("; privinfer proof obligation") for o in cert["obligations"])


def test_the_disputed_theorem_is_flagged_in_the_claim_and_the_trust_base():
    cert = cert_of(HELLINGER)
    rel = next(c for c in cert["claims"] if c["name"] == "rel")
    assert rel["disputed"] == ["mech.hellinger.poster_corrected"]
    assert "disputed:mech.hellinger.poster_corrected" in cert["trust_base"]["theorems"]


# ---- the mutation suite --------------------------------------------------------------------

LAPLACE = ROOT / "benchmarks/programs/paper/beta_output_laplace.pinf"
EXPMECH = ROOT / "benchmarks/programs/paper/beta_output_hellinger.pinf"
NEGATIVE = ROOT / "benchmarks/programs/negative/beta_output_laplace_undercharged.pinf"
NORMAL = ROOT / "benchmarks/programs/paper/normal_output_laplace.pinf"


def test_mutation_guarantee_statement():
    cert = cert_of(EXPMECH)
    cert["claims"][1]["guarantee"]["statement"] = \
        cert["claims"][1]["guarantee"]["statement"].replace("rho * eps", "eps")
    invalid(cert, "claim main", "guarantee")


def test_mutation_claim_index():
    cert = cert_of(EXPMECH)
    cert["claims"][1]["guarantee"]["index"]["eps"] = real("1")
    invalid(cert, "claim main", "index")
    cert = cert_of(EXPMECH)
    node(cert, "Abs", "main")["judgement"]["index"]["eps"] = real("1")
    invalid(cert, "claim main", "index")


def test_mutation_budget_index_and_costs():
    cert = cert_of(LAPLACE)
    budget = node(cert, "Budget", "main")
    budget["judgement"]["index"]["eps"] = real("100")
    invalid(cert, budget["id"], "index")
    cert = cert_of(LAPLACE)
    budget = node(cert, "Budget", "main")
    budget["judgement"]["costs"][0]["eps"] = real("0")
    invalid(cert, budget["id"], "costs")


def test_mutation_mechanism_cost():
    cert = cert_of(LAPLACE)
    lap = node(cert, "LapMech")
    lap["judgement"]["cost"]["eps"] = real("0")
    invalid(cert, lap["id"], "cost")
    cert = cert_of(LAPLACE)
    lap = node(cert, "LapMech")
    lap["judgement"]["value"][1] = lap["judgement"]["value"][0]   # "the same in both runs"
    invalid(cert, "run-2 form")


def test_a_rule_the_kernel_does_not_know_fails_closed():
    cert = cert_of(LAPLACE)
    lap = node(cert, "LapMech")
    lap["rule"] = "NoisyMech"   # e.g. a mechanism added with verifier.extend.add_mechanism
    invalid(cert, lap["id"], "no schema")


def test_mutation_formula_structured():
    cert = cert_of(LAPLACE)
    ob = next(o for o in cert["obligations"] if o["discharge"]["method"] == "z3")
    ob["obligation"]["goal"]["term"] = T.term_to_json(T.TRUE)
    invalid(cert, ob["id"])


def test_mutation_formula_text_and_smtlib():
    cert = cert_of(LAPLACE)
    ob = cert["obligations"][0]
    ob["obligation"]["goal"]["text"] = "true"
    invalid(cert, ob["id"], "normal form")
    cert = cert_of(LAPLACE)
    ob = next(o for o in cert["obligations"] if o["discharge"]["method"] == "z3")
    ob["smtlib"] = ob["smtlib"].replace("(check-sat)", "(assert false)\n(check-sat)")
    invalid(cert, ob["id"], "SMT-LIB")


def test_mutation_formula_with_a_recomputed_id_breaks_the_links():
    cert = cert_of(LAPLACE)
    ob = next(o for o in cert["obligations"] if o["discharge"]["method"] == "z3")
    ob["id"] = ob["obligation"]["id"] = "entailment-0000000000000000"
    cert["obligations"].sort(key=lambda o: o["id"])
    invalid(cert, "does not exist")


def test_mutation_lemma_instantiation():
    cert = cert_of(EXPMECH)
    ob = next(o for o in cert["obligations"] if any(a["schema"] == "betarho" for a in o["axioms"]))
    ax = next(a for a in ob["axioms"] if a["schema"] == "betarho")
    other = next(o for o in cert["obligations"] if o["axioms"] and o is not ob)
    ax["args"] = other["axioms"][0]["args"]
    invalid(cert, ob["id"], "axiom")
    cert = cert_of(EXPMECH)
    ob = next(o for o in cert["obligations"] if o["axioms"])
    ob["axioms"][0]["schema"] = "triangle"
    invalid(cert, ob["id"], "axiom")


def test_mutation_an_axiom_instance_at_each_of_its_occurrences():
    # the kernel checks an instance (schema, arguments, axiom) once: every other occurrence
    # with other arguments is still checked
    cert = cert_of(EXPMECH)
    seen = {}
    for o in cert["obligations"]:
        for i, a in enumerate(o["axioms"]):
            seen.setdefault(json.dumps([a["schema"], a["args"]]), []).append((o["id"], i))
    shared = next(places for places in seen.values() if len(places) > 1)
    for oid, i in shared:
        cert = cert_of(EXPMECH)
        ax = record(cert, oid)["axioms"][i]
        other = next(a for o in cert["obligations"] for a in o["axioms"]
                     if a["schema"] == ax["schema"] and a["args"] != ax["args"])
        ax["args"] = other["args"]
        invalid(cert, oid, "axiom")


def test_mutation_lemma_of_a_node():
    cert = cert_of(EXPMECH)
    exp = node(cert, "ExpMech")
    exp["judgement"]["lemma"] = "mech.laplace"
    invalid(cert, exp["id"], "mech.exponential")


def test_mutation_solver_result():
    cert = cert_of(LAPLACE)
    ob = next(o for o in cert["obligations"] if o["discharge"]["method"] == "z3")
    ob["discharge"]["result"] = "sat"
    invalid(cert, ob["id"], "sat")
    cert = cert_of(LAPLACE)
    ob = next(o for o in cert["obligations"] if o["discharge"]["method"] == "z3")
    ob["discharge"]["method"] = "trivial"
    invalid(cert, ob["id"], "trivial")


def test_mutation_solver_result_of_an_obligation_whose_formula_recurs():
    # the kernel runs a formula once (same hypotheses, axioms, goal): the discharge of every
    # obligation is still checked
    cert = cert_of(NORMAL)
    formulas = {}
    for o in cert["obligations"]:
        ob = o["obligation"]
        key = json.dumps([ob["hypotheses"], ob["axioms"], ob["goal"]])
        if o["discharge"]["method"] == "z3":
            formulas.setdefault(key, []).append(o["id"])
    twice = next(ids for ids in formulas.values() if len(ids) > 1)
    for oid in twice:
        cert = cert_of(NORMAL)
        record(cert, oid)["discharge"]["result"] = "unknown"
        invalid(cert, oid, "unknown")


def test_a_formula_that_recurs_is_run_once(monkeypatch):
    cert = cert_of(NORMAL)
    runs = []
    monkeypatch.setattr(kernel, "check_smtlib", lambda text, *a: runs.append(text) or "unsat")
    assert check(cert).valid
    solved = [o for o in cert["obligations"] if o["discharge"]["method"] == "z3"]
    commands = {"\n".join(line for line in o["smtlib"].splitlines() if not line.startswith(";"))
                for o in solved}
    assert len(runs) == len(commands) < len(solved)


def test_mutation_source_byte():
    cert = cert_of(LAPLACE)
    text = cert["source"]["text"]
    i = text.index("let ")
    cert["source"]["text"] = text[:i] + "l" + text[i:]
    invalid(cert, "source", "SHA-256")


def test_mutation_delete_a_node():
    cert = cert_of(LAPLACE)
    victim = node(cert, "LapMech")
    cert["nodes"].remove(victim)
    invalid(cert, victim["id"], "does not exist")


def test_mutation_reorder_and_rename_nodes():
    cert = cert_of(LAPLACE)
    cert["nodes"][1], cert["nodes"][2] = cert["nodes"][2], cert["nodes"][1]
    invalid(cert, "canonical order")
    cert = cert_of(LAPLACE)
    old = cert["nodes"][1]["id"]
    new = old.replace("/n2", "/n99")
    text = json.dumps(cert).replace(f'"{old}"', f'"{new}"')
    invalid(json.loads(text), new, "should be")


def test_mutation_delete_an_obligation():
    cert = cert_of(LAPLACE)
    gone = cert["obligations"].pop(3)
    invalid(cert, gone["id"], "does not exist")


def test_mutation_drop_the_disputed_flag():
    cert = cert_of(HELLINGER)
    next(c for c in cert["claims"] if c["name"] == "rel")["disputed"] = []
    invalid(cert, "claim rel", "disputed")
    cert = cert_of(HELLINGER)
    node(cert, "HellingerMech")["judgement"].pop("disputed")
    invalid(cert, "disputed flag")
    cert = cert_of(HELLINGER)
    cert["trust_base"]["theorems"].remove("disputed:mech.hellinger.poster_corrected")
    invalid(cert, "trust base", "theorems")


DUMMY_SUM = ROOT / "benchmarks/programs/course/dummy_sum.pinf"


def test_mutation_same_branch_condition():
    cert = cert_of(DUMMY_SUM)
    split = node(cert, "Match-Split")
    oid = split["judgement"]["branch"]["obligation"]
    split["judgement"]["branch"]["obligation"] = None
    invalid(cert, oid, "used by no node")
    cert["obligations"].remove(record(cert, oid))
    invalid(cert, split["id"], "same branch")
    cert = cert_of(DUMMY_SUM)
    split = node(cert, "Match-Split")
    split["judgement"]["branch"]["mode"] = "sync"
    invalid(cert, split["id"], "same branch")


BOUND_IF = ROOT / "benchmarks/programs/classic/adaptive_composition_bound_if.pinf"
IF_RULES = ROOT / "tests/programs/if_rules.pinf"
CLIPPED = ROOT / "benchmarks/programs/classic/clipped_count.pinf"


def test_mutation_cost_of_an_if_in_a_bound_position():
    cert = cert_of(BOUND_IF)
    branch = node(cert, "If")
    branch["judgement"]["cost"]["eps"] = branch["judgement"]["cost"]["eps"]["args"][1]
    invalid(cert, branch["id"], "the cost recorded is not If's")   # the then branch's only
    cert = cert_of(BOUND_IF)
    branch = node(cert, "If")
    lap = cert["nodes"][[n["id"] for n in cert["nodes"]].index(branch["premises"][1])]
    lap["judgement"]["cost"]["eps"] = real("0")                    # the else branch is free
    invalid(cert, lap["id"], "cost")


def test_mutation_same_branch_obligation_of_an_if_in_a_bound_position():
    cert = cert_of(IF_RULES)   # sameCount: the conditions are two terms, proved equal
    branch = node(cert, "If", "sameCount")
    oid = branch["judgement"]["branch"]["obligation"]
    assert oid is not None
    branch["judgement"]["branch"]["obligation"] = None
    invalid(cert, branch["id"], "no obligation that both runs take the same branch")
    cert = cert_of(IF_RULES)
    branch = node(cert, "If", "sameCount")
    budget = node(cert, "Budget", "sameCount")
    branch["judgement"]["branch"]["obligation"] = budget["obligations"][0]
    invalid(cert, branch["id"], "the same-branch obligation must be")


def test_mutation_cases_of_a_bound_if_or_match():
    cert = cert_of(BOUND_IF)
    branch = node(cert, "If")
    nodes = {n["id"]: n for n in cert["nodes"]}
    for p, case in zip(branch["premises"], ("else", "then")):   # the costs' orientation
        nodes[p]["judgement"]["case"] = case
    invalid(cert, branch["id"], "the cases then and else, in that order")
    cert = cert_of(IF_RULES)
    match = node(cert, "Match", "byShape")
    match["judgement"]["branch"]["mode"] = "split"
    invalid(cert, match["id"])


def test_mutation_a_lifted_if():
    cert = cert_of(CLIPPED)
    lap = node(cert, "LapMech")
    lap["judgement"]["cost"]["eps"] = real("0")
    invalid(cert, lap["id"], "the cost recorded is not LapMech's")
    cert = cert_of(IF_RULES)   # lifted: an If-Lift in a bound position has its premise's cost
    lift = node(cert, "If-Lift", "lifted")
    lift["judgement"]["cost"]["eps"] = real("0")
    invalid(cert, lift["id"], "the cost recorded is not If-Lift's")
    cert = cert_of(CLIPPED)
    lift = node(cert, "If-Lift")
    lift["rule"] = "If"   # passed off as an if both runs take alike: it has no same-branch proof
    invalid(cert, "branch")


def test_mutation_assumptions_of_the_parameters():
    cert = cert_of(EXPMECH)   # main assumes a >= 1.0: make it a >= 2.0
    root = node(cert, "Abs", "main")
    vocabulary = T.Vocabulary.from_json(cert["vocabulary"])
    assumption = next(a for a in root["judgement"]["assumptions"] if ">=" in T.pretty(
        T.term_from_json(a["term"], vocabulary)))
    assumption["term"]["args"][1] = real("2")
    invalid(cert, root["id"], "assumptions")


def test_mutation_two_parameters_share_a_variable():
    cert = cert_of(LAPLACE)   # main db a b eps: make b's terms a's
    root = node(cert, "Abs", "main")
    params = root["judgement"]["parameters"]
    a, b = (next(p for p in params if p["var"] == v) for v in ("a", "b"))
    b["left"], b["right"] = a["left"], a["right"]
    invalid(cert, root["id"], "variables of its own")


def test_mutation_a_hypothesis_out_of_nowhere():
    cert = cert_of(LAPLACE)
    budget = node(cert, "Budget", "main")
    budget["judgement"]["hypotheses"].append("h_wish")
    invalid(cert, budget["id"], "h_wish", "without a rule")


def test_mutation_arguments_of_a_call():
    cert = cert_of(DUMMY_SUM)
    call = node(cert, "App-Val", "dummySum")
    call["judgement"]["arguments"][-1]["obligations"] -= 1   # one of eps's is counted as l's
    call["judgement"]["arguments"][-2]["obligations"] += 1
    invalid(cert, call["id"], "argument 2", "noisyPrefix")
    cert = cert_of(DUMMY_SUM)
    call = node(cert, "App-Val", "dummySum")
    call["judgement"]["arguments"][1]["var"] = "k"
    invalid(cert, call["id"], "argument k")


def test_mutation_upgrade_a_rejected_claim():
    cert = cert_of(NEGATIVE)
    main = next(c for c in cert["claims"] if c["name"] == "main")
    main.update(verdict="verified", failure=None, failing=[], code=None, confirmation=None)
    invalid(cert, "not verified")


def test_mutation_a_claim_left_out():
    cert = cert_of(NEGATIVE)
    cert["claims"].pop()
    invalid(cert, "claims", "vals of the source")


# ---- formats, exit codes, determinism, isolation -------------------------------------------------

def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verifier.cli", *args], cwd=ROOT,
                          capture_output=True, text=True)


def test_cli_exit_codes(tmp_path):
    out = tmp_path / "laplace.json"
    done = run_cli("verify", str(LAPLACE.relative_to(ROOT)), "--certificate", str(out))
    assert done.returncode == 0, done.stderr
    assert run_cli("check", str(out)).returncode == 0
    cert = json.loads(out.read_text())
    cert["claims"][0]["verdict"] = "maybe"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(cert))
    done = run_cli("check", str(bad))
    assert done.returncode == 1 and "JSON Schema" in done.stdout
    (tmp_path / "junk.json").write_text("{not json")
    assert run_cli("check", str(tmp_path / "junk.json")).returncode == 2
    assert run_cli("check", str(tmp_path / "missing.json")).returncode == 2
    (tmp_path / "empty.json").write_text("{}")
    assert run_cli("check", str(tmp_path / "empty.json")).returncode == 1


def test_certificates_are_deterministic(tmp_path):
    texts = []
    for i in range(2):
        out = tmp_path / f"c{i}.json"
        assert run_cli("verify", str(EXPMECH.relative_to(ROOT)), "--certificate",
                       str(out)).returncode == 0
        cert = json.loads(out.read_text())
        assert set(cert["timings"]) == {"claims", "obligations"}
        del cert["timings"]
        texts.append(dumps(cert))
    assert texts[0] == texts[1]
    assert str(ROOT) not in texts[0]


def test_smtlib_directory(tmp_path):
    done = run_cli("verify", str(LAPLACE.relative_to(ROOT)), "--smtlib", str(tmp_path))
    assert done.returncode == 0, done.stderr
    files = sorted(tmp_path.glob("*.smt2"))
    cert = cert_of(LAPLACE)
    assert [f.stem for f in files] == [o["id"] for o in cert["obligations"]]
    for f in files[:5]:
        assert check_smtlib(f.read_text(), "z3") == "unsat"


def test_cvc5_rechecks_a_certificate():
    cert = cert_of(LAPLACE)
    outcome = kernel.check(cert, solver="cvc5")
    assert outcome.valid, outcome.reason


def test_the_kernel_reads_terms_as_term_from_json_and_shares_equal_subterms():
    from checker.reading import Reader
    reader, seen = Reader(), {}
    for o in cert_of(EXPMECH)["obligations"]:
        ob = o["obligation"]
        vocabulary = reader.vocabulary(ob["vocabulary"])
        for n in ob["hypotheses"] + ob["axioms"] + [ob["goal"]]:
            t = reader.term(n["term"], vocabulary)
            assert t == T.term_from_json(n["term"], vocabulary[1])
            for u in T.subterms(t):
                assert seen.setdefault(u, u) is u
    reader.term({"t": "const", "sort": "Int", "value": 1}, vocabulary)
    with pytest.raises(T.SortError):  # not taken for the 1 just read (True == 1 in Python)
        reader.term({"t": "const", "sort": "Int", "value": True}, vocabulary)


def test_the_kernel_imports_nothing_of_the_derivation_builder(tmp_path):
    out = tmp_path / "c.json"
    out.write_text(dumps(cert_of(LAPLACE)))
    script = (
        "import sys\n"
        "from verifier.cli import _dispatch\n"
        f"code = _dispatch(['check', {str(out)!r}])\n"
        "mine = sorted(m for m in sys.modules if m.startswith(('verifier', 'checker')))\n"
        "print('MODULES', mine)\n"
        "sys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    modules = eval(done.stdout.split("MODULES", 1)[1])
    forbidden = [m for m in modules if m.startswith(("verifier.rules", "verifier.verification",
                                                     "verifier.semantics", "checker.certify"))]
    assert not forbidden, forbidden
    assert "checker.kernel" in modules and "verifier.language.parser" in modules


# ---- call facts: the val of a pure function at its calls -----------------------------------

PURE_CALL = ROOT / "tests" / "programs" / "pure_call.pinf"


def test_call_facts_check_and_depend_on_the_callee():
    cert = cert_of(PURE_CALL)
    facts = [h for o in cert["obligations"] for h in o["obligation"]["hypotheses"]
             if h["name"].startswith("h__call_")]
    assert facts and check(cert).valid
    mean = next(c for c in cert["claims"] if c["name"] == "mean")
    mean.update(verdict="unknown", failure="not checked", code="V002", confirmation=None)
    invalid(cert, "noisyMean", "val of mean", "not verified")


def test_a_call_fact_that_is_not_the_val_is_refused(monkeypatch):
    from verifier.rules import call_facts

    real_parts = call_facts._fact_parts

    def stronger(builder, name, left, right):  # what a wishful verifier would assume
        parts = real_parts(builder, name, left, right)
        return None if parts is None else (parts[0], parts[1] + [T.eq(left, right)])

    monkeypatch.setattr(call_facts, "_fact_parts", stronger)
    program = parse_file(str(PURE_CALL.relative_to(ROOT)))
    report = verify_program(program, typecheck_program(program))
    cert = json.loads(dumps(certificate(report, program.source, program.file)))
    invalid(cert, "h__call_1", "not what the val")
