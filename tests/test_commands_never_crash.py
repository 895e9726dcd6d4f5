"""No input to any command ends in an internal error (issue 25): random and extreme paths,
numbers, CSV cells, argument strings and certificates are fed to every command in process;
each run must exit 0, 1 or 2 and never print a traceback or "internal error" (exit 3).

The inputs are chosen so that a run that is *valid* stays small (one cheap program, --quick,
--count 0 or 1, --no-check): the test checks the failure paths, not the work, and keeps a
bounded number of examples per command (a couple of seconds each on average).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.cli import main
from verifier.errors import PrivInferError

PROGRAM = """
val noisy :: {l :: bool list | adj (l<1>, l<2>)} -> {eps :: real+ | =} -> M[DP(eps)] {r :: real | =}
let noisy db eps = lapMech (eps, count db)

val flip :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(log 3.0)] {r :: bool | =}
let flip db = mlet keep = ran (bernoulli 0.75) in return (if keep then count db > 0 else count db = 0)

let total (xs : real list) = sum xs
let size (xs : int list) = length xs
"""

#: numbers at and beyond every limit, and things that are not numbers
NUMBERS = ["0", "1", "2", "-1", "0.5", "1e400", "-1e400", "1e-400", "nan", "inf", "-inf", "1e999999999",
           "9" * 5000, "99999999999999999999999999", "", "abc", "0x1f", "1_000", " 7 ", "1e4000", "2e-4001"]
#: CSV cells: numbers as above, booleans, text, quotes
CELLS = NUMBERS + ["true", "false", "TRUE", '"1,5"', "1,5", "\u00e9", "1e", "--1", "+3", ".5", "5."]


def _files(root: Path):
    program = root / "program.pinf"
    program.write_text(PROGRAM)
    (root / "empty.pinf").write_text("")
    (root / "binary.pinf").write_bytes(b"\xff\xfe\x00garbage")
    (root / "folder").mkdir()
    # an output path that is a file already: a copy, for the program itself must survive the tests
    (root / "existing.pinf").write_text(PROGRAM)
    certificate = root / "certificate.json"
    assert main(["verify", str(program), "--certificate", str(certificate)]) in (0, 1)
    return {"program": str(program), "certificate": str(certificate), "root": root}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return _files(tmp_path_factory.mktemp("never_crash"))


def output_paths(files):
    root = files["root"]
    return st.sampled_from([str(root / "out" / "x.json"), str(root / "folder"), "/nonexistent/x.json",
                            "/proc/x", "/proc/version", str(root / "existing.pinf"), "/proc", "a" * 5000,
                            str(root / "fresh")])


def input_paths(files):
    root = files["root"]
    return st.sampled_from([files["program"], str(root / "empty.pinf"), str(root / "binary.pinf"),
                            str(root / "folder"), "/nonexistent.pinf", "/proc/self/mem", "", "a" * 5000])


numbers = st.sampled_from(NUMBERS) | st.integers(-10 ** 30, 10 ** 30).map(str)
texts = st.text(max_size=30)


def run_command(capsys, argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (argv, code, err[-2000:])
    assert "internal error" not in err and "Traceback" not in err, (argv, err[-2000:])
    return code, out, err


SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@SETTINGS
@given(data=st.data())
def test_parse_typecheck_and_verify(capsys, files, data):
    command = data.draw(st.sampled_from(["parse", "typecheck", "verify"]))
    argv = [command, data.draw(input_paths(files))]
    if command == "verify":
        for option in data.draw(st.lists(st.sampled_from(["--certificate", "--dot", "--smtlib", "--json",
                                                          "--only"]), max_size=2, unique=True)):
            argv += [option] if option == "--json" else \
                [option, data.draw(texts if option == "--only" else output_paths(files))]
    run_command(capsys, argv)


@SETTINGS
@given(data=st.data())
def test_run(capsys, files, data):
    entry = data.draw(st.sampled_from(["noisy", "flip", "total", "size", "nowhere"]))
    argv = ["run", files["program"], entry]
    if data.draw(st.booleans()):
        cells = data.draw(st.lists(st.sampled_from(CELLS) | texts, min_size=1, max_size=4))
        csv = files["root"] / "data.csv"
        csv.write_text("x,y\n" + "".join(f"{c},{c}\n" for c in cells))
        column = data.draw(st.sampled_from(["x", "1", "7", "nope", ""]))
        argv += ["--data", f"{data.draw(st.sampled_from(['db', 'xs', 'nope']))}={csv}:{column}"]
    for _ in range(data.draw(st.integers(0, 2))):
        name = data.draw(st.sampled_from(["db", "eps", "xs", "#1", "", "=", "nope"]))
        value = data.draw(numbers | texts | st.sampled_from(["[true; false]", "[1.5; 2e400]", "[", "1.0 / 0.0",
                                                            "sqrt (0.0 - 1.0)", "exp 1e4000"]))
        argv += ["--arg", f"{name}={value}"]
    if data.draw(st.booleans()):
        argv += ["--seed", data.draw(numbers)]
    argv += data.draw(st.lists(st.sampled_from(["--json", "--dist"]), max_size=2, unique=True))
    run_command(capsys, argv)


@SETTINGS
@given(data=st.data())
def test_audit(capsys, files, data):
    entry = data.draw(st.sampled_from(["noisy", "flip", "total", "nowhere"]))
    argv = ["audit", data.draw(input_paths(files)), entry, "--n", data.draw(st.sampled_from(["1", "2"]) | numbers)]
    if data.draw(st.booleans()):
        argv += ["--arg", f"eps={data.draw(numbers | texts)}"]
    for option in data.draw(st.lists(st.sampled_from(["--eps-grid", "--max-inputs", "--private"]),
                                     max_size=2, unique=True)):
        argv += [option, data.draw(numbers | texts)]
    run_command(capsys, argv + ["--no-verify"])


def _mutations(document):
    """Certificates with one part deleted, emptied or replaced."""
    out = []

    def walk(node, replace):
        if isinstance(node, dict):
            for key in list(node)[:12]:
                walk(node[key], lambda v, k=key: node.__setitem__(k, v))
        elif isinstance(node, list):
            for i in range(min(len(node), 6)):
                walk(node[i], lambda v, i=i: node.__setitem__(i, v))
        out.append(replace)
    walk(document, lambda v: None)
    return out


@SETTINGS
@given(data=st.data())
def test_check_of_damaged_certificates(capsys, files, data):
    document = json.loads(Path(files["certificate"]).read_text())
    setters = _mutations(document)
    setter = setters[data.draw(st.integers(0, len(setters) - 1))]
    setter(data.draw(st.sampled_from([None, [], {}, "", 0, -1, 1e308, "x" * 1000, [[]], True])))
    damaged = files["root"] / "damaged.json"
    damaged.write_text(json.dumps(document))
    path = data.draw(st.sampled_from([str(damaged)] * 3 + ["/nonexistent.json", files["program"],
                                                            str(files["root"] / "folder")]))
    run_command(capsys, ["check", path] + data.draw(st.lists(st.just("--json"), max_size=1)))


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_bench_experiment_and_lemmas(capsys, files, data):
    command = data.draw(st.sampled_from(["fuzz", "bench", "experiment", "lemmas"]))
    if command == "fuzz":
        argv = ["fuzz", "--count", data.draw(st.sampled_from(["0", "1", "-1", "abc", "1e3"])),
                "--no-shrink", "--no-kernel", "--no-metamorphic"]
        if data.draw(st.booleans()):
            argv += ["--certificates"]
        for option in data.draw(st.lists(st.sampled_from(["--seed", "--out", "--workers", "--program",
                                                          "--max-shrinks"]), max_size=2, unique=True)):
            argv += [option, data.draw(output_paths(files) if option == "--out" else
                                       st.sampled_from(["0", "-1", "99999", "1e400", "nan", "x"]))]
    elif command == "bench":
        argv = ["bench", "--no-check", "--no-audit", "--filter",
                data.draw(st.sampled_from(["zz-no-program", "classic/randomized_response.pinf", "[", "*zz*"])),
                "--repeat", data.draw(st.sampled_from(["1", "0", "-3", "x", "1e9"])),
                "--out", data.draw(output_paths(files))]
    elif command == "experiment":   # every run has at least one bad input: the real study takes minutes
        argv = ["experiment", data.draw(st.sampled_from(["accuracy", "sensitivity", "priors", "law", "nope"])),
                "--quick", "--prior", data.draw(st.sampled_from(["1,1", "1e400,1", "-1,1", "x", "0,2", "inf,1"])),
                "--out", data.draw(output_paths(files).filter(lambda p: "out" not in p and "fresh" not in p)),
                "--draws", data.draw(st.sampled_from(["1", "-5", "1e400", "99999999999999999999", "x"]))]
    else:
        argv = ["lemmas"] + data.draw(st.sampled_from([[], ["--json"], ["--id", "nope"], ["--show", "x"],
                                                       ["--export", "/proc/x"], ["--artifacts", "/nonexistent"],
                                                       ["--artifacts", files["program"]]]))
    run_command(capsys, argv)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(["parse", "typecheck", "run", "verify", "check", "lemmas", "bench", "audit",
                                "fuzz", "experiment", "nope", ""]),
       rest=st.lists(texts | numbers, max_size=4))
def test_random_argument_strings(capsys, command, rest):
    """Arbitrary words after a command name: argparse's usage errors, missing files, unknown
    entries, all exit 2 (never a run that could last: fuzz and bench get an impossible option)."""
    guard = {"fuzz": ["--count", "-1"], "bench": ["--repeat", "0"], "experiment": ["--draws", "1"],
             "lemmas": ["--id", "no-such-lemma"]}.get(command, [])
    run_command(capsys, [command, *rest, *guard])


def test_the_examples_from_the_issue(capsys, files, tmp_path):
    """Each of the issue's inputs that ended in exit 3 or ran for minutes."""
    program, root = files["program"], files["root"]
    for argv in (["verify", program, "--certificate", "/nonexistent/x.json"],
                 ["verify", program, "--dot", "/proc/x"], ["verify", program, "--smtlib", "/proc/x"],
                 ["verify", program, "--certificate", "/proc/version"], ["verify", program, "--dot", str(root)],
                 ["experiment", "accuracy", "--out", "/proc/x"], ["fuzz", "--count", "1", "--out", "/proc/x"],
                 ["bench", "--filter", "randomized", "--out", "/proc/x"]):
        code, out, err = run_command(capsys, argv)
        assert code == 2 and "error[U003]" in err and argv[-1] in err and out == ""
    for cell in ("9" * 5000, "1e999999999"):
        csv = tmp_path / "cells.csv"
        csv.write_text(f"x\n{cell}\n")
        code, _, err = run_command(capsys, ["run", program, "total", "--data", f"xs={csv}:x"])
        assert code == 2 and "R005" in err and "too large" in err and str(csv) in err
    code, out, _ = run_command(capsys, ["check", "/nonexistent.json", "--json"])
    assert code == 2 and json.loads(out)["code"] == "C001"


def test_version_and_a_file_with_nothing_to_verify(capsys, files):
    code, out, _ = run_command(capsys, ["--version"])
    assert code == 0 and out.startswith("privinfer ") and len(out.split()) == 2
    empty = str(files["root"] / "empty.pinf")
    code, out, _ = run_command(capsys, ["verify", empty])
    assert code == 1 and "nothing to verify" in out and "0 of 0" not in out
    code, out, _ = run_command(capsys, ["verify", empty, "--json"])
    assert code == 1 and json.loads(out)["ok"] is False


def test_an_argument_with_a_nul_character_is_a_usage_error(capsys, files):
    """Found by ``test_random_argument_strings``: a NUL in a path made ``open`` raise
    ValueError (exit 3). No shell passes one, but ``main`` is an API."""
    for argv in (["parse", "\x00"], ["verify", files["program"] + "\x00"], ["check", "a\x00b"],
                 ["verify", files["program"], "--dot", "x\x00.dot"]):
        code, out, err = run_command(capsys, argv)
        assert code == 2 and "error[U002]" in err and "NUL" in err and out == ""
    from verifier.language.source import read_source
    with pytest.raises(PrivInferError) as info:
        read_source(files["program"] + "\x00")
    assert info.value.first.code == "U001"
