"""The kernel's record of lemmas re-checked on the machine (``checker.lemma_records``).

A first check re-checks the artifacts of the lemmas a certificate cites and records them
under the library's fingerprint; a later check takes them from the record (and says so); a
record made under another fingerprint, a corrupt record, ``--recheck-lemmas`` or an empty
``PRIVINFER_CACHE_DIR`` make the kernel re-check again; the fingerprint changes with the
library's code and tools. Also: ``privinfer verify`` with several files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker import kernel, lemma_records
from checker.certify import certificate, dumps
from verifier.cli import main
from verifier.language.parser import parse_file
from verifier.language.typecheck import typecheck_program
from verifier.verification import verify_program

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "benchmarks" / "programs" / "course" / "laplace_mean.pinf"
RECORDED = "re-checked earlier on this machine"


@pytest.fixture(scope="module")
def cert() -> dict:
    program = parse_file(str(PROGRAM.relative_to(ROOT)))
    report = verify_program(program, typecheck_program(program))
    return json.loads(dumps(certificate(report, program.source, program.file)))


@pytest.fixture()
def record_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("PRIVINFER_CACHE_DIR", str(tmp_path))
    kernel.LEMMA_CHECKS.clear()
    return tmp_path


def recorded_note(outcome: kernel.Outcome) -> bool:
    return any(RECORDED in n for n in outcome.notes)


def test_a_first_check_records_and_a_second_uses_the_record(cert, record_dir):
    first = kernel.check(cert)
    assert first.valid and not recorded_note(first)
    data = json.loads((record_dir / "lemma-checks.json").read_text())
    assert data["fingerprint"] == lemma_records.fingerprint()
    cited = {l["id"] for l in first.trust_base["lemmas"]}
    assert cited and cited <= set(data["lemmas"])
    kernel.RECORDS.clear()  # as a new process would
    second = kernel.check(cert)
    assert second.valid and recorded_note(second)
    assert second.trust_base == first.trust_base


def test_recheck_lemmas_ignores_the_record(cert, record_dir):
    kernel.check(cert)
    kernel.LEMMA_CHECKS.clear()
    outcome = kernel.check(cert, recheck_lemmas=True)
    assert outcome.valid and not recorded_note(outcome)


@pytest.mark.parametrize("text", ["not json", json.dumps({"fingerprint": "0" * 64, "lemmas": {
    "mech.laplace": {"status": "proved", "cited": [], "artifact_sha256": "x", "trust": []}}})])
def test_a_corrupt_or_foreign_record_is_not_used(cert, record_dir, text):
    (record_dir / "lemma-checks.json").write_text(text)
    kernel.RECORDS.clear()
    outcome = kernel.check(cert)
    assert outcome.valid and not recorded_note(outcome)


def test_a_forged_record_entry_under_the_right_fingerprint_is_trusted_as_documented(
        cert, record_dir):
    # the record is as trustworthy as the checker's own files: this pins down that a record
    # entry is what the kernel believes (here: a status that makes the trust base differ)
    kernel.check(cert)
    path = record_dir / "lemma-checks.json"
    data = json.loads(path.read_text())
    lid = sorted(data["lemmas"])[0]
    data["lemmas"][lid]["status"] = "disputed"
    path.write_text(json.dumps(data))
    kernel.RECORDS.clear()
    outcome = kernel.check(cert)
    assert not outcome.valid
    assert "disputed" in outcome.reason or "trust base" in outcome.reason


def test_no_record_when_the_cache_dir_is_empty(cert, monkeypatch, tmp_path):
    monkeypatch.setenv("PRIVINFER_CACHE_DIR", "")
    assert lemma_records.record_path() is None
    assert kernel.check(cert).valid
    assert not list(tmp_path.iterdir())


def test_the_fingerprint_follows_the_code_and_the_tools(tmp_path, monkeypatch):
    for package in lemma_records.FINGERPRINTED:
        (tmp_path / package).mkdir()
        (tmp_path / package / "a.py").write_text("x = 1\n")
    monkeypatch.setattr(lemma_records, "ROOT", tmp_path)
    before = lemma_records.fingerprint()
    assert lemma_records.fingerprint() == before
    (tmp_path / "lemmas" / "a.py").write_text("x = 2\n")
    changed = lemma_records.fingerprint()
    assert changed != before
    monkeypatch.setattr(lemma_records, "TOOLS", lemma_records.TOOLS + ("no-such-tool",))
    assert lemma_records.fingerprint() != changed


def test_a_check_from_the_record_loads_neither_the_lemma_library_nor_jsonschema(
        cert, record_dir):
    import os
    import subprocess
    import sys
    assert kernel.check(cert).valid  # fills the record
    path = record_dir / "cert.json"
    path.write_text(dumps(cert))
    script = ("import sys\n"
              "from verifier.cli import _dispatch\n"
              f"code = _dispatch(['check', {str(path)!r}])\n"
              "print('MODULES', sorted(sys.modules))\n"
              "sys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "PRIVINFER_CACHE_DIR": str(record_dir)})
    assert done.returncode == 0 and RECORDED in done.stdout, done.stdout + done.stderr
    modules = eval(done.stdout.split("MODULES", 1)[1])
    loaded = [m for m in modules if m.split(".")[0] in ("sympy", "lemmas", "jsonschema")
              or m == "importlib.metadata"]
    assert not loaded, loaded


def test_tool_versions_are_those_importlib_metadata_reads():
    from importlib.metadata import version
    tools = lemma_records.TOOLS + ("jsonschema", "no-such-tool")
    versions = lemma_records.tool_versions(tools)
    assert versions == {**{t: version(t) for t in tools[:-1]}, "no-such-tool": "absent"}


def test_verify_takes_several_files(capsys):
    good = str(PROGRAM)
    bad = str(ROOT / "benchmarks" / "programs" / "negative" / "count_wrong_scale.pinf")
    assert main(["verify", good, bad]) == 1
    out = capsys.readouterr().out
    assert good in out and bad in out and "1 of 1 claims verified" in out
    assert "0 of 1 claims verified" in out
    assert main(["verify", good, good]) == 0
    capsys.readouterr()
    assert main(["verify", good, bad, "--json"]) == 1
    reports = json.loads(capsys.readouterr().out)
    assert [r["ok"] for r in reports] == [True, False]


def test_several_files_with_a_single_file_option_is_an_input_error(capsys, tmp_path):
    good = str(PROGRAM)
    assert main(["verify", good, good, "--certificate", str(tmp_path / "c.json")]) == 2
    assert "--certificate takes one FILE" in capsys.readouterr().err
