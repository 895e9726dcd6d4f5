"""Certificates (``privinfer verify --certificate``) and their kernel (``privinfer check``).

Every bundled example's certificate checks. A certificate says how, never what: the kernel
derives every obligation from the source, so forgeries made as an attacker would make them —
the source of a rejected program put in a verified program's certificate with every hash
recomputed, a rejected claim relabelled verified, a mechanism's argument edited, rules
swapped, nodes deleted — are refused with a named reason, whenever ``privinfer verify`` does
not verify the forged source itself. Certificates are deterministic; the kernel imports
nothing of the derivation builder.
"""
from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from checker import kernel
from checker.certify import certificate, dumps
from obligations.smtlib import check_smtlib
from verifier.language.parser import parse_file, parse_program
from verifier.language.pretty import pretty_rtype
from verifier.language.typecheck import typecheck_program
from verifier.verification import verify_program

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "benchmarks" / "programs"
SHARED = sorted(p for d in ("paper", "course", "negative") for p in (PROGRAMS / d).glob("*.pinf"))
REJECTED = sorted(p for d in ("negative", "mistakes", "unsound")
                  for p in (PROGRAMS / d).glob("*.pinf"))
HELLINGER = ROOT / "tests" / "programs" / "hellinger_mech.pinf"
LAPLACE = PROGRAMS / "paper/beta_output_laplace.pinf"
EXPMECH = PROGRAMS / "paper/beta_output_hellinger.pinf"
DUMMY_SUM = PROGRAMS / "course/dummy_sum.pinf"
_CACHE: dict = {}


def verify_text(text: str, name: str = "forged.pinf"):
    program = parse_program(text, name)
    return verify_program(program, typecheck_program(program))


def cert_of(path: Path) -> dict:
    """The certificate of ``path`` (named relative to the repository), made once per module."""
    if path not in _CACHE:
        program = parse_file(str(path.relative_to(ROOT)))
        report = verify_program(program, typecheck_program(program))
        _CACHE[path] = (json.loads(dumps(certificate(report, program.source, program.file))),
                        report)
    return copy.deepcopy(_CACHE[path][0])


def resign(cert: dict, text: str) -> dict:
    """``cert`` with ``text`` as its source, everything an attacker can recompute recomputed:
    the hash, and the claims' statements (the vals of the new text)."""
    cert = copy.deepcopy(cert)
    cert["source"]["text"] = text
    cert["source"]["sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    vals = parse_program(text, "forged.pinf").vals()
    for claim, val in zip(cert["claims"], vals):
        claim["statement"] = f"{val.name} :: {pretty_rtype(val.rtype)}"
    return cert


def upgraded(cert: dict) -> dict:
    """``cert`` with every claim that has a derivation labelled verified."""
    cert = copy.deepcopy(cert)
    for claim in cert["claims"]:
        if claim["root"] is not None:
            claim.update(verdict="verified", failure=None, code=None, confirmation=None)
    return cert


def check(cert: dict) -> kernel.Outcome:
    return kernel.check(cert)


def invalid(cert: dict, *words: str) -> str:
    """``cert`` is invalid and the reason names every one of ``words``."""
    outcome = kernel.check(cert)
    assert not outcome.valid, "the forged certificate checks"
    for w in words:
        assert w in outcome.reason, outcome.reason
    return outcome.reason


def node(cert: dict, rule: str, claim: str = None) -> dict:
    return next(n for n in cert["nodes"] if n["rule"] == rule
                and (claim is None or n["id"].startswith(claim + "/")))


# ---- every bundled example --------------------------------------------------------------------

@pytest.mark.parametrize("path", SHARED + [HELLINGER], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_certificates_of_the_bundled_examples_check(path):
    outcome = kernel.check(cert_of(path))
    assert outcome.valid, outcome.reason
    report = _CACHE[path][1]
    assert [(c["name"], c["verdict"]) for c in outcome.claims] == [
        (c.name, c.verdict) for c in report.claims]
    if any(c.verdict == "verified" for c in report.claims):
        assert outcome.obligations, "the kernel derived nothing to prove"


def test_the_kernel_derives_at_least_the_obligations_the_verifier_proved():
    """The kernel's obligations are its own, yet they include every obligation the verifier
    discharged for the claims (as formulas: provenance texts may differ)."""
    for path in (LAPLACE, EXPMECH, DUMMY_SUM, PROGRAMS / "paper/normal_input_gauss.pinf"):
        outcome = kernel.check(cert_of(path))
        key = lambda ob: (ob.kind, ob.hypotheses, ob.goal, ob.axioms)  # noqa: E731
        mine = {key(ob) for ob in outcome.obligations}
        theirs = {key(ob) for c in _CACHE[path][1].claims if c.verdict == "verified"
                  for ob in c.obligations}
        assert theirs <= mine, path.name


def test_a_valid_outcome_states_the_trust_base_the_kernel_computed():
    outcome = kernel.check(cert_of(EXPMECH))
    base = outcome.trust_base
    assert base["solvers"][0]["name"] == "z3"
    assert "literature:mech.exponential" in base["theorems"]
    assert "literature:hellinger.triangle" in base["theorems"]
    assert {"id": "beta.hellinger.adjacent.rho", "status": "proved"} in base["lemmas"]


def test_the_disputed_theorem_is_flagged_and_cannot_be_dropped():
    cert = cert_of(HELLINGER)
    rel = next(c for c in cert["claims"] if c["name"] == "rel")
    assert rel["disputed"] == ["mech.hellinger.poster_corrected"]
    assert "disputed:mech.hellinger.poster_corrected" in kernel.check(cert).trust_base["theorems"]
    rel["disputed"] = []
    invalid(cert, "claim rel", "disputed", "mech.hellinger.poster_corrected")


# ---- forgeries: a certificate cannot say what must be proved ------------------------------------

def certificate_of_text(text: str) -> dict:
    report = verify_text(text)
    return json.loads(dumps(certificate(report, text, "forged.pinf"))), report


#: rejected programs, and how to make a verified twin with the same claims from each
GOOD_AND_BAD = [
    (PROGRAMS / "negative/count_wrong_scale.pinf", ("DP(eps / 2.0)", "DP(eps)")),
    (PROGRAMS / "negative/dummy_sum_undercharged.pinf",
     ("M[DP(eps)]", "M[DP(eps * length l<1>)]")),
    (PROGRAMS / "negative/beta_output_laplace_undercharged.pinf", LAPLACE),
    (PROGRAMS / "negative/beta_output_laplace_unclamped.pinf", LAPLACE),
    (PROGRAMS / "negative/beta_hellinger_small_prior.pinf", EXPMECH),
    (PROGRAMS / "mistakes/uncharged_second_release.pinf", None),
    (PROGRAMS / "mistakes/sensitivity_too_low.pinf", None),
    (PROGRAMS / "unsound/val_call_outside_domain.pinf", None),
    (PROGRAMS / "unsound/stored_mechanism_parameters.pinf", None),
]


@pytest.mark.parametrize("bad, good", GOOD_AND_BAD, ids=lambda x: getattr(x, "stem", "-"))
def test_the_source_of_a_rejected_program_in_a_verified_certificate_is_refused(bad, good):
    """The certificate of a verified program, its source replaced by a rejected program's
    and re-signed (hash, statements), is refused. The verified program is the rejected one
    edited into a twin, or a bundled program with the same claims; with neither, the
    rejected program's own certificate, every claim relabelled verified."""
    text = bad.read_text()
    report = verify_text(text)
    assert not all(c.verdict == "verified" for c in report.claims), "the program is verified"
    if isinstance(good, tuple):
        donor, twin = certificate_of_text(text.replace(*good))
        assert all(c.verdict == "verified" for c in twin.claims), "the twin is not verified"
    elif good is not None:
        donor = cert_of(good)
    else:
        donor = upgraded(cert_of(bad))
    forged = resign(donor, text)
    assert [c["name"] for c in forged["claims"]] == [c.name for c in report.claims]
    for claim in forged["claims"]:
        if claim["root"] is not None:
            claim.update(verdict="verified", failure=None, code=None, confirmation=None)
    invalid(forged)


@pytest.mark.parametrize("path", REJECTED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_rejected_claim_relabelled_verified_is_refused(path):
    """Every claim the verifier did not verify, relabelled verified in its own certificate
    (whose derivation is the verifier's attempt, or, where it has none, the simplest one: the
    body's inputs equal in both runs), is refused."""
    cert = cert_of(path)
    rejected = [c for c in cert["claims"] if c["verdict"] != "verified"]
    assert rejected, "a rejected program has a rejected claim"
    for claim in rejected:
        forged = copy.deepcopy(cert)
        mine = next(c for c in forged["claims"] if c["name"] == claim["name"])
        if mine["root"] is None:
            mine["root"] = f"{claim['name']}/n1"
            others = [n for n in forged["nodes"] if not n["id"].startswith(claim["name"] + "/")]
            decl = parse_program(forged["source"]["text"], "x.pinf").find_let(claim["name"])
            rule = "LetRec-Induction" if decl is not None and decl.recursive else "Abs"
            mine_nodes = tree(claim["name"], (rule, ("Safety",),
                                              ("Budget", ("EqualInputs",), ("S-M",))))
            forged["nodes"] = []  # claims in order, each tree in preorder
            for c in forged["claims"]:
                forged["nodes"] += mine_nodes if c is mine else \
                    [n for n in others if n["id"].startswith(c["name"] + "/")]
        mine.update(verdict="verified", failure=None, code=None, confirmation=None)
        invalid(forged)


def tree(claim: str, shape) -> list:
    """The nodes of a derivation of ``claim`` written as ``(rule, premise shapes...)``, in
    preorder with canonical ids and no positions (a forger's tree)."""
    nodes, counter = [], iter(range(1, 10_000))

    def add(s) -> str:
        nid = f"{claim}/n{next(counter)}"
        entry = {"id": nid, "rule": s[0], "at": None, "premises": []}
        nodes.append(entry)
        entry["premises"] = [add(p) for p in s[1:]]
        return nid

    add(shape)
    return nodes


@pytest.mark.parametrize("shape", [
    ("Abs", ("Safety",), ("If", ("Budget", ("LapMech",), ("S-M",)),
                          ("Budget", ("UnitM",), ("S-M",)))),
    ("Abs", ("Safety",), ("If-Lift", ("Budget", ("LapMech",), ("S-M",)))),
    ("Abs", ("Safety",), ("Budget", ("EqualInputs",), ("S-M",))),
    ("Abs", ("ExactFinite",)),
])
def test_a_derivation_written_by_hand_for_a_branch_on_private_data_is_refused(shape):
    cert = cert_of(PROGRAMS / "mistakes/branch_on_private.pinf")
    claim = cert["claims"][0]
    claim.update(verdict="verified", failure=None, code=None, confirmation=None,
                 root=claim["name"] + "/n1")
    cert["nodes"] = tree(claim["name"], shape)
    invalid(cert, "claim countIfLarge")


def test_a_rejected_claim_given_another_claims_derivation_is_refused():
    cert = cert_of(PROGRAMS / "negative/count_wrong_scale.pinf")
    donor = cert_of(PROGRAMS / "classic/noisy_sum.pinf")
    claim = cert["claims"][0]
    claim.update(verdict="verified", failure=None, code=None, confirmation=None,
                 root=claim["name"] + "/n1")
    cert["nodes"] = [{**n, "id": n["id"].replace(donor["claims"][0]["name"], claim["name"]),
                      "premises": [p.replace(donor["claims"][0]["name"], claim["name"])
                                   for p in n["premises"]]} for n in donor["nodes"]]
    invalid(cert, "claim noisyCount")


SOURCE_EDITS = [  # (program, text replaced, replacement)
    (PROGRAMS / "classic/noisy_sum.pinf", "lapMech (eps,", "lapMech (10.0 * eps,"),
    (PROGRAMS / "classic/noisy_sum.pinf", "lapMech (eps,", "lapMech (9.0,"),
    (PROGRAMS / "classic/private_majority.pinf", "count db", "count db + count db"),
    (DUMMY_SUM, "noisyPrefix (acc + x) xs eps", "noisyPrefix (acc + x) xs (2.0 * eps)"),
    (DUMMY_SUM, "lapMech (eps, acc + x)", "lapMech (eps, acc + x + x)"),
    (LAPLACE, "lapMech (eps", "lapMech (2.0 * eps"),
    (PROGRAMS / "classic/clipped_count.pinf", "lapMech (eps, cap)", "lapMech (eps, 2.0 * cap)"),
    (PROGRAMS / "classic/clipped_count.pinf", "else lapMech (eps,", "else lapMech (0.5 * eps,"),
]


@pytest.mark.parametrize("path, old, new", SOURCE_EDITS, ids=lambda x: getattr(x, "stem", x))
def test_an_edited_source_is_judged_as_what_it_now_says(path, old, new):
    """A source edit with every hash recomputed (and the node positions fixed up where the
    edit moved them) is accepted only if the verifier verifies the edited source."""
    text = path.read_text()
    if old not in text:
        pytest.skip(f"{old!r} is not in {path.name}")
    edited = text.replace(old, new, 1)
    forged = resign(cert_of(path), edited)
    if edited.count("\n") == text.count("\n"):
        shift = len(new) - len(old)
        line = text[:text.index(old)].count("\n") + 1
        col = text.index(old) - text.rfind("\n", 0, text.index(old))
        for n in forged["nodes"]:  # an attacker moves the recorded positions too
            at = n["at"]
            if at and at[2] == line and at[3] > col:
                at[3] += shift
            if at and at[0] == line and at[1] > col:
                at[1] += shift
    report = verify_text(edited)
    outcome = kernel.check(forged)
    for claim, mine in zip(report.claims, outcome.claims if outcome.valid else []):
        assert claim.verdict == "verified" or mine["verdict"] != "verified", claim.name
    if not all(c.verdict == "verified" for c in report.claims):
        assert not outcome.valid


def test_a_source_byte_changed_without_its_hash_is_refused():
    cert = cert_of(LAPLACE)
    cert["source"]["text"] = cert["source"]["text"].replace("eps", "eps ", 1)
    invalid(cert, "SHA-256")


def test_the_claims_are_the_vals_of_the_source():
    cert = cert_of(LAPLACE)
    cert["claims"].pop()
    invalid(cert, "claims", "vals of the source")
    cert = cert_of(EXPMECH)
    cert["claims"][1]["statement"] = cert["claims"][1]["statement"].replace("rho * eps", "eps")
    invalid(cert, "claim main", "statement")


def test_a_rule_the_kernel_does_not_know_fails_closed():
    cert = cert_of(LAPLACE)
    node(cert, "LapMech")["rule"] = "RRMech"
    invalid(cert, "RRMech", "not a rule for")


@pytest.mark.parametrize("old, new", [("EqualInputs", "UnitM"), ("LapMech", "GaussMech"),
                                      ("Safety", "Sub"), ("BindM", "Let")])
def test_a_rule_swapped_for_another_is_refused(old, new):
    for path in (LAPLACE, DUMMY_SUM, EXPMECH):
        cert = cert_of(path)
        target = next((n for n in cert["nodes"] if n["rule"] == old), None)
        if target is not None:
            target["rule"] = new
            invalid(cert, "node")
            return
    pytest.skip(f"no {old} node")


def test_a_match_on_lists_that_may_differ_cannot_claim_they_are_equal():
    cert = cert_of(DUMMY_SUM)
    split = node(cert, "Match-Split")
    split["rule"] = "Match"
    assert split["premises"], "a split with cases"
    invalid(cert)


def test_deleted_reordered_and_renamed_nodes_are_refused():
    cert = cert_of(LAPLACE)
    cert["nodes"].pop()
    invalid(cert, "does not exist")
    cert = cert_of(LAPLACE)
    cert["nodes"][1], cert["nodes"][2] = cert["nodes"][2], cert["nodes"][1]
    invalid(cert, "canonical order")
    cert = cert_of(LAPLACE)
    cert["nodes"][1]["id"] = cert["nodes"][1]["id"] + "9"
    invalid(cert)
    cert = cert_of(LAPLACE)
    root = node(cert, "Abs", "main")
    root["premises"] = root["premises"][:1]
    invalid(cert)


def test_an_unverified_claim_must_say_why():
    cert = cert_of(PROGRAMS / "negative/count_wrong_scale.pinf")
    cert["claims"][0]["failure"] = None
    invalid(cert, "must say why")
    cert = cert_of(PROGRAMS / "negative/count_wrong_scale.pinf")
    cert["claims"][0]["confirmation"] = None
    invalid(cert, "refuted exactly when")


def test_a_huge_resource_limit_is_capped():
    cert = cert_of(LAPLACE)
    cert["solver"]["rlimit"] = 10 ** 15
    assert kernel.check(cert).valid


def test_malformed_certificates_never_crash_the_kernel():
    for mangle in (lambda c: c.pop("nodes"), lambda c: c["nodes"].append(42),
                   lambda c: c["claims"][0].update(root="main/n999"),
                   lambda c: c["nodes"][0].update(at=[1, 2, 3]),
                   lambda c: c.update(format="privinfer-certificate/1")):
        cert = cert_of(LAPLACE)
        mangle(cert)
        outcome = kernel.check(cert)
        assert not outcome.valid and "Traceback" not in outcome.reason


# ---- formats, exit codes, determinism, isolation -------------------------------------------------

def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verifier.cli", *args], cwd=ROOT,
                          capture_output=True, text=True)


def test_cli_exit_codes(tmp_path):
    out = tmp_path / "laplace.json"
    done = run_cli("verify", str(LAPLACE.relative_to(ROOT)), "--certificate", str(out))
    assert done.returncode == 0, done.stderr
    done = run_cli("check", str(out))
    assert done.returncode == 0 and "derived from the source" in done.stdout, done.stdout
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
        assert set(cert["timings"]) == {"claims"}
        del cert["timings"]
        texts.append(dumps(cert))
    assert texts[0] == texts[1]
    assert str(ROOT) not in texts[0]


def test_smtlib_directory(tmp_path):
    done = run_cli("verify", str(LAPLACE.relative_to(ROOT)), "--smtlib", str(tmp_path))
    assert done.returncode == 0, done.stderr
    files = sorted(tmp_path.glob("*.smt2"))
    cert_of(LAPLACE)
    report = _CACHE[LAPLACE][1]
    assert [f.stem for f in files] == sorted({ob.id for c in report.claims for ob in c.obligations})
    for f in files[:5]:
        assert check_smtlib(f.read_text(), "z3") == "unsat"


def test_cvc5_rechecks_a_certificate():
    outcome = kernel.check(cert_of(LAPLACE), solver="cvc5")
    assert outcome.valid, outcome.reason
    assert {s["name"] for s in outcome.trust_base["solvers"]} == {"cvc5"}


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


def test_call_facts_depend_on_the_callee():
    cert = cert_of(PURE_CALL)
    outcome = kernel.check(cert)
    assert outcome.valid, outcome.reason
    assert any(h.name.startswith("h__call_") for ob in outcome.obligations for h in ob.hypotheses)
    mean = next(c for c in cert["claims"] if c["name"] == "mean")
    mean.update(verdict="unknown", failure="not checked", code="V002", confirmation=None)
    invalid(cert, "noisyMean", "val of mean", "not verified")


def test_a_verifier_assuming_more_of_a_call_than_its_val_says_is_caught(monkeypatch):
    """A wishful call fact (the builder's) cannot help: the kernel states its own."""
    from obligations import terms as T
    from verifier.rules import call_facts

    real_parts = call_facts._fact_parts

    from verifier.translation.calls import call_value

    def stronger(builder, name, left, right):  # left, right: the calls' argument terms
        parts = real_parts(builder, name, left, right)
        if parts is None:
            return None
        fa, fb = (call_value(name, args, builder.result_type(name)) for args in (left, right))
        return (parts[0], parts[1] + [T.eq(fa.term, fb.term)], parts[2])

    monkeypatch.setattr(call_facts, "_fact_parts", stronger)
    program = parse_file(str(PURE_CALL.relative_to(ROOT)))
    report = verify_program(program, typecheck_program(program))
    cert = json.loads(dumps(certificate(report, program.source, program.file)))
    outcome = kernel.check(cert)
    fooled = [c.name for c in report.claims if c.verdict == "verified"]
    for mine in outcome.claims if outcome.valid else []:
        if mine["verdict"] == "verified":
            honest = verify_text(PURE_CALL.read_text())
            assert next(c for c in honest.claims if c.name == mine["name"]).verdict == "verified"
    assert fooled


# ---- the certificate-mutation oracle ---------------------------------------------------------------

def test_a_fixed_seed_forgery_campaign_finds_no_failure():
    """``privinfer fuzz --certificates``: forged certificates of bundled and random programs;
    whatever the kernel accepts, the verifier verifies (and the kernel never crashes)."""
    from verifier.fuzz.forgery import campaign
    report = campaign(seed=3, count=80)
    assert report.mutants == 80 and report.subjects >= 8
    assert not report.failures, report.render()
    assert sum(report.accepted.values()) < report.mutants   # it refuses forgeries
    assert len(report.tried) >= 10                         # of many kinds
