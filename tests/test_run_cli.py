"""``privinfer run``: arguments, CSV data, output formats, the seeded-source warning, errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.cli import main

PROGRAMS = Path(__file__).resolve().parent.parent / "benchmarks" / "programs"
LAPLACE = str(PROGRAMS / "paper" / "beta_output_laplace.pinf")
EXPMECH = str(PROGRAMS / "paper" / "beta_input_expmech.pinf")

PROGRAM = """
val scale :: {x :: real+ | =} -> {k :: [3] | =} -> real
let scale x k = x * k

let pairs (xs : real list) (flags : bool list) (ks : [3] list) = (sum xs, count flags, length ks)

let first (a, b) c = a + c

let answer = 1 + 1

let prior p = infer (ran p)

let rec learnBias db prior = match db with
  | [] -> prior
  | d :: dbs -> observe (fun r -> mlet z = ran (bernoulli r) in return (d = z)) (learnBias dbs prior)

let noisy x = lapMech (1.0, x)
"""


@pytest.fixture()
def program(tmp_path: Path) -> str:
    path = tmp_path / "prog.pinf"
    path.write_text(PROGRAM)
    return str(path)


def run(capsys, *argv: str):
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    return code, out.strip(), err.strip()


def run_json(capsys, *argv: str):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out), err


# ---- results ----------------------------------------------------------------------------------------


def test_a_plain_value(capsys, program):
    assert run(capsys, program, "answer") == (0, "2", "")
    result, _ = run_json(capsys, program, "answer")
    assert result == {"entry": "answer", "value": 2, "printed": "2", "kind": "value", "releasable": False,
                      "source": result["source"]}


def test_the_posterior_of_the_papers_example(capsys, program):
    code, out, _ = run(capsys, program, "learnBias", "--arg", "db=[true; true; false]",
                       "--arg", "prior=ran (beta (2.0, 3.0))", "--dist")
    assert (code, out) == (0, "beta(4.0, 4.0)")
    result, _ = run_json(capsys, program, "prior", "--arg", "p=beta (12, 9)")
    assert result["value"] == {"family": "beta", "params": [12.0, 9.0]}
    assert result["printed"] == "beta(12.0, 9.0)" and result["kind"] == "value"


def test_one_sample_with_a_seed_is_reproducible_and_not_releasable(capsys):
    args = [LAPLACE, "main", "--arg", "db=[true; true; false]", "--arg", "a=2.0", "--arg", "b=3.0",
            "--arg", "eps=1.0", "--seed", "42"]
    first, err = run_json(capsys, *args)
    again, _ = run_json(capsys, *args)
    assert first == again
    assert first["kind"] == "sample" and first["releasable"] is False
    assert "NOT for release" in first["source"] or "seeded" in first["source"]
    assert first["value"]["family"] == "beta" and first["printed"].startswith("beta(")
    assert "warning: --seed 42" in err and "must not be released" in err


def test_without_a_seed_the_secure_source_is_used(capsys):
    result, err = run_json(capsys, LAPLACE, "main", "--arg", "db=[true]", "--arg", "a=1.0",
                           "--arg", "b=1.0", "--arg", "eps=1.0")
    assert result["kind"] == "sample" and result["releasable"] is True
    assert result["source"].startswith("secure") and err == ""


def test_dist_prints_the_exact_finite_distribution(capsys):
    result, _ = run_json(capsys, EXPMECH, "addNoise", "--arg", "db=[true]", "--arg", "eps=2.0", "--dist")
    assert result["kind"] == "distribution" and result["releasable"] is False
    support = {tuple(entry["value"]): entry["probability"] for entry in result["value"]["support"]}
    assert support[(True,)] == pytest.approx(0.7310585786300049, rel=1e-12)
    code, out, _ = run(capsys, EXPMECH, "main", "--arg", "db=[true; false]", "--arg", "a=1.0",
                       "--arg", "b=1.0", "--arg", "eps=1.0", "--dist")
    assert code == 0 and out.startswith("finite [(beta(1.0, 3.0), ")


def test_dist_of_continuous_noise_is_R003(capsys, program):
    code, _, err = run(capsys, program, "noisy", "--arg", "x=1.0", "--dist")
    assert code == 2 and "error[R003]" in err and "lapMech" in err and "prog.pinf:" in err


# ---- --arg -------------------------------------------------------------------------------------------


def test_arguments_use_the_language_syntax(capsys, program):
    assert run(capsys, program, "scale", "--arg", "x=-1.5 * -2.0", "--arg", "k=2")[:2] == (0, "6.0")
    assert run(capsys, program, "scale", "--arg", "x=3", "--arg", "k=1")[:2] == (0, "3.0")  # int -> real
    code, out, _ = run(capsys, program, "pairs", "--arg", "xs=[1.5; -2; 0.25]", "--arg", "flags=[true; false]",
                       "--arg", "ks=[]")
    assert (code, out) == (0, "(-0.25, 1, 0)")
    assert run(capsys, program, "first", "--arg", "#1=(1.0, true)", "--arg", "c=2.0")[:2] == (0, "3.0")


@pytest.mark.parametrize("argv, fragments", [
    (["scale", "--arg", "y=1.0", "--arg", "k=1"],
     ["R005", "scale has no parameter 'y'", "expected: x : real+, k : [3]"]),
    (["scale", "--arg", "x=1.0"], ["R005", "missing value for the parameter k (#2) of scale"]),
    (["scale", "--arg", "x=1.0", "--arg", "x=2.0", "--arg", "k=1"], ["R005", "given twice"]),
    (["scale", "--arg", "x=0.0", "--arg", "k=1"], ["R005", "--arg x: x : real+ needs a positive real, got 0.0"]),
    (["scale", "--arg", "x=1.0", "--arg", "k=3"], ["R005", "--arg k: 3 is not in [3]"]),
    (["scale", "--arg", "x=true", "--arg", "k=1"], ["R005", "true (a bool) is not of type real"]),
    (["pairs", "--arg", "xs=[1.0; true]", "--arg", "flags=[]", "--arg", "ks=[]"],
     ["R005", "in element 2 of the list, true (a bool) is not of type real"]),
    (["scale", "--arg", "x=y + 1.0", "--arg", "k=1"], ["R005", "closed expression", "mentions y"]),
    (["scale", "--arg", "x", "--arg", "k=1"], ["R005", "not of the form NAME=VALUE"]),
    (["scale", "--arg", "x=(1.0", "--arg", "k=1"], ["<--arg x>:1:"]),
    (["scale", "--arg", "x=beta (0.0, 1.0)", "--arg", "k=1"],
     ["<--arg x>:1:1: error[R001]: beta needs positive parameters, got beta (0.0, 1.0)"]),
    (["nope"], ["R004", "no declaration named 'nope'", "answer"]),
    (["answer", "--arg", "x=1"], ["R005", "answer takes no parameters"]),
])
def test_argument_errors(capsys, program, argv, fragments):
    code, out, err = run(capsys, program, *argv)
    assert code == 2 and out == ""
    for fragment in fragments:
        assert fragment in err, err


def test_a_range_error_at_run_time_points_into_the_program(capsys, tmp_path):
    path = tmp_path / "bad.pinf"
    path.write_text("let main a = beta (a, 1.0)\n")
    code, _, err = run(capsys, str(path), "main", "--arg", "a=-1.0")
    assert code == 2
    assert f"{path}:1:14: error[R001]: beta needs positive parameters, got beta (-1.0, 1.0)" in err
    assert "let main a = beta (a, 1.0)" in err and "^^^^" in err


# ---- --data ------------------------------------------------------------------------------------------


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_data_columns_by_name_and_by_index(capsys, program, tmp_path):
    csv = write(tmp_path, "d.csv", "x,flag,k\n0.5,true,0\n1.25,0,2\n\n-2,TRUE,1\n")
    code, out, err = run(capsys, program, "pairs", "--data", f"xs={csv}:x", "--data", f"flags={csv}:1",
                         "--data", f"ks={csv}:k")
    assert (code, out) == (0, "(-0.25, 2, 3)"), err
    bare = write(tmp_path, "bare.csv", "1,0\n0,1\n1,1\n")
    code, out, err = run(capsys, program, "learnBias", "--data", f"db={bare}:0",
                         "--arg", "prior=ran (uniform ())", "--dist")
    assert (code, out) == (0, "beta(3.0, 2.0)"), err


@pytest.mark.parametrize("text, column, param, fragments", [
    ("x\n1.0\nabc\n", "x", "xs", ["d.csv:3:1: error[R005]", "'abc' is not a real number"]),
    ("a,k\n1,0\n2, 5\n", "k", "ks", ["d.csv:3:4: error[R005]", "5 is not in [3]"]),
    ("flag\ntrue\nmaybe\n", "flag", "flags", ["d.csv:3:1", "'maybe' is not a bool (true, false, 1 or 0)"]),
    ("x\n1.0\n", "y", "xs", ["R005", "no column 'y' (columns: x)"]),
    ("a,b\n1,2\n3\n", "1", "xs", ["d.csv:3:1", "no column 1"]),
    ("x\n1.0\n", "x", "nope", ["R005", "has no parameter 'nope'"]),
])
def test_data_errors_point_at_the_cell(capsys, program, tmp_path, text, column, param, fragments):
    csv = write(tmp_path, "d.csv", text)
    others = {"xs": "[]", "flags": "[]", "ks": "[]"}
    argv = ["pairs", "--data", f"{param}={csv}:{column}"]
    argv += [x for name, value in others.items() if name != param for x in ("--arg", f"{name}={value}")]
    code, _, err = run(capsys, program, *argv)
    assert code == 2
    for fragment in fragments:
        assert fragment in err, err


def test_data_needs_a_list_parameter_and_a_readable_file(capsys, program, tmp_path):
    csv = write(tmp_path, "d.csv", "x\n1.0\n")
    code, _, err = run(capsys, program, "scale", "--data", f"x={csv}:x", "--arg", "k=1")
    assert code == 2 and "--data needs a list parameter" in err
    code, _, err = run(capsys, program, "pairs", "--data", f"xs={tmp_path / 'missing.csv'}:x",
                       "--arg", "flags=[]", "--arg", "ks=[]")
    assert code == 2 and "error[U001]" in err
    code, _, err = run(capsys, program, "pairs", "--data", "xs=nocolumn", "--arg", "flags=[]", "--arg", "ks=[]")
    assert code == 2 and "FILE.csv:COLUMN" in err


def test_large_data_files_run_in_linear_time(capsys, program, tmp_path):
    rows = "\n".join("1" if i % 4 == 0 else "0" for i in range(20_000))
    csv = write(tmp_path, "big.csv", "d\n" + rows + "\n")
    code, out, err = run(capsys, program, "learnBias", "--data", f"db={csv}:d",
                         "--arg", "prior=ran (beta (1.0, 1.0))", "--dist")
    assert (code, out) == (0, "beta(5001.0, 15001.0)"), err


@pytest.mark.parametrize("command", [["run", "--seed", "1"], ["run", "--dist"], ["audit", "--n", "2"]])
def test_a_program_that_loops_stops_with_R010(capsys, tmp_path, monkeypatch, command):
    import verifier.semantics.evaluator as evaluator_module
    monkeypatch.setattr(evaluator_module, "STEP_BUDGET", 2_000)
    path = tmp_path / "loop.pinf"
    path.write_text("let rec loop x = mlet y = return x in loop y\nlet main db = loop (count db > 0)\n")
    argv = [command[0], str(path), "main", *command[1:]]
    if command[0] == "run":
        argv += ["--arg", "db=[true]"]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and "error[R010]" in err and "did not terminate within 2000 steps" in err
    assert "loop.pinf:1:" in err
