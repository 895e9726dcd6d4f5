"""``privinfer lemmas [--check]``: listing, re-checking the whole library, exit codes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from verifier.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run_cli(capsys, *argv):
    code = main(["lemmas", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_full_library_rechecks(capsys):
    """Every artifact of the library re-checks (exit 0)."""
    code, out, _ = run_cli(capsys, "--check", "--json")
    report = json.loads(out)
    failed = [r for r in report["lemmas"] if not r["ok"]]
    assert code == 0 and report["ok"], failed
    ids = {r["id"] for r in report["lemmas"]}
    for must in ("beta.hellinger.adjacent", "beta.hellinger.adjacent.rho", "beta.tv.adjacent.zeta",
                 "dirichlet.hellinger.adjacent.rho/k=3", "normal.mean.sensitivity.n1",
                 "sens.count.adj", "sens.sum.adjwithin", "mech.laplace", "mech.gaussian",
                 "mech.exponential", "compose.epsd", "mech.hellinger.poster",
                 "beta.hellinger.adjacent.counterexample"):
        assert must in ids
    statuses = {r["id"]: r["status"] for r in report["lemmas"]}
    assert statuses["mech.hellinger.poster"] == "disputed"
    assert statuses["mech.laplace"] == "literature"
    assert statuses["beta.hellinger.adjacent.rho"] == "proved"


def test_listing(capsys):
    code, out, _ = run_cli(capsys)
    assert code == 0
    line = next(l for l in out.splitlines() if l.startswith("mech.hellinger.poster "))
    assert "disputed" in line
    code, out, _ = run_cli(capsys, "--json", "--id", "gfun.at_one")
    assert code == 0 and json.loads(out)[0]["status"] == "proved"


def test_corrupted_stored_artifact_fails_the_check(capsys, tmp_path):
    ids = ["gfun.at_one", "beta.hellinger.adjacent.counterexample"]
    sel = [a for i in ids for a in ("--id", i)]
    code, _, _ = run_cli(capsys, "--export", str(tmp_path), *sel)
    assert code == 0
    code, out, _ = run_cli(capsys, "--artifacts", str(tmp_path), *sel)
    assert code == 0, out
    path = tmp_path / "beta.hellinger.adjacent.counterexample.json"
    text = path.read_text()
    assert "g(1/20)**2 < pi/4" in text
    path.write_text(text.replace("g(1/20)**2 < pi/4", "g(2)**2 < pi/4"))
    code, out, _ = run_cli(capsys, "--artifacts", str(tmp_path), *sel)
    assert code == 1
    assert "FAILED  beta.hellinger.adjacent.counterexample" in out
    assert "ok      gfun.at_one" in out
    # a missing artifact fails as well
    (tmp_path / "gfun.at_one.json").unlink()
    code, out, _ = run_cli(capsys, "--artifacts", str(tmp_path), "--id", "gfun.at_one")
    assert code == 1 and "no artifact" in out


def test_corrupted_family_member_and_dimension_on_demand(capsys, tmp_path):
    lid = "dirichlet.bc.adjacent/k=2"
    code, _, _ = run_cli(capsys, "--export", str(tmp_path), "--id", lid)
    path = tmp_path / "dirichlet.bc.adjacent@k=2.json"
    data = json.loads(path.read_text())
    data["steps"] = [s for s in data["steps"] if s["kind"] != "identity"]   # delete a step
    path.write_text(json.dumps(data))
    code, out, _ = run_cli(capsys, "--artifacts", str(tmp_path), "--id", lid, "--json")
    assert code == 1 and not json.loads(out)["ok"]


def test_bad_arguments_exit_2(capsys, tmp_path):
    code, _, err = run_cli(capsys, "--id", "no.such.lemma")
    assert code == 2 and "U002" in err
    code, _, err = run_cli(capsys, "--artifacts", str(tmp_path / "missing"))
    assert code == 2


def test_console_script_exit_code():
    exe = ROOT / ".venv" / "bin" / "privinfer"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "verifier.cli"]
    proc = subprocess.run(cmd + ["lemmas", "--check", "--id", "gfun.increasing"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("ok      gfun.increasing")
