"""``privinfer parse FILE`` end to end: output, exit statuses and diagnostics."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.language.parser import parse_file, parse_program

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = [ROOT / "benchmarks" / "programs" / name for name in (
    "course/dummy_sum.pinf", "paper/normal_input_gauss.pinf",
    "negative/beta_hellinger_small_prior.pinf")]


def privinfer(*args):
    """Run the command line in a fresh interpreter, as a user would."""
    env = {key: value for key, value in os.environ.items() if key != "PRIVINFER_DEBUG"}
    return subprocess.run([sys.executable, "-m", "verifier.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def test_parse_prints_the_program_back():
    path = EXAMPLES[0]
    result = privinfer("parse", path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert parse_program(result.stdout) == parse_file(path)


def test_fifty_thousand_parentheses_exit_2_without_traceback(tmp_path):
    path = tmp_path / "deep.pinf"
    path.write_text("let x = " + "(" * 50_000 + "1" + ")" * 50_000 + "\n")
    result = privinfer("parse", path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert f"{path}:1:" in result.stderr and "error[P007]" in result.stderr


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_examples_through_main(path, capsys):
    assert main(["parse", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert parse_program(out) == parse_file(path)


def run_main(capsys, path):
    status = main(["parse", str(path)])
    out, err = capsys.readouterr()
    return status, out, err


def test_empty_file_exits_0_and_prints_nothing(tmp_path, capsys):
    path = tmp_path / "empty.pinf"
    path.write_text("(* nothing to see *)\n")
    assert run_main(capsys, path) == (0, "", "")


def test_syntax_error_is_reported_with_position_and_caret(tmp_path, capsys):
    path = tmp_path / "bad.pinf"
    path.write_text("let f x =\n  g (x in y)\n")
    status, out, err = run_main(capsys, path)
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert lines[0] == (f"{path}:2:8: error[P005]: expected ')' to close the '(' at 2:5, "
                        "found 'in'")
    assert lines[1] == "      g (x in y)"
    assert lines[2] == "           ^^"


def test_unclosed_comment_points_at_its_opening(tmp_path, capsys):
    path = tmp_path / "comment.pinf"
    path.write_text("let x = 1\n(* never (* closed *)\nlet y = 2\n")
    status, _, err = run_main(capsys, path)
    assert status == 2
    assert err.startswith(f"{path}:2:1: error[P003]")


def test_bad_character(tmp_path, capsys):
    path = tmp_path / "char.pinf"
    path.write_text("let x = 1 ? 2\n")
    status, _, err = run_main(capsys, path)
    assert status == 2
    assert err.startswith(f"{path}:1:11: error[P002]: unexpected character '?'")


def test_non_utf8_file(tmp_path, capsys):
    path = tmp_path / "latin1.pinf"
    path.write_bytes(b"let x = 1\nlet y = \xe9\n")
    status, _, err = run_main(capsys, path)
    assert status == 2
    assert err.startswith(f"{path}:2:9: error[P001]")


def test_binary_file(tmp_path, capsys):
    path = tmp_path / "binary.pinf"
    path.write_bytes(bytes(range(256)))
    status, _, err = run_main(capsys, path)
    assert status == 2
    assert "error[P001]" in err


def test_missing_file(tmp_path, capsys):
    status, _, err = run_main(capsys, tmp_path / "missing.pinf")
    assert status == 2
    assert "error[U001]" in err


def test_long_list_file(tmp_path, capsys):
    path = tmp_path / "data.pinf"
    path.write_text("let data = [" + "; ".join(str(i) for i in range(10_000)) + "]\n")
    status, out, _ = run_main(capsys, path)
    assert status == 0
    assert out.startswith("let data =\n  [0; 1; 2;") and out.endswith("9999]\n")
