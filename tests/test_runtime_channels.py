"""No run-time channel (issue 25): a verified program must not stop with an error on one input
and run on its neighbour. The comparisons below are exactly decidable (docs/reals.md, "The
decidable fragment"), so every run of them ends normally and adjacent runs agree; before, a
comparison of a true zero that sympy could not simplify stopped the run with R011 when
``count db`` was not 0 and ran when it was (``0 * x`` is 0 without any decision).

The fragment does not close the channel on its own (a nonzero difference within 2^-2,000,000 of
0, a distance outside it): the verifier's Decidable condition (tests/test_decidable.py) now
rejects every one of these programs (V010), since each compares an irrational number that
depends on the data. The runs must still agree."""
from __future__ import annotations

import pytest

from verifier.cli import main

HEADER = "val main :: {l :: bool list | adj (l<1>, l<2>)} -> M[DP(0.1)] {r :: %s | =}\nlet main db = %s\n"

#: (name, output type, body, verified before the Decidable condition?)
ATTACKS = [
    ("sqrt-huge", "bool", "return ((sqrt 8e700 - 2.0 * sqrt 2e700) * count db = 0.0)", True),
    ("sqrt-in-lapmech", "real",
     "lapMech (0.1, if (sqrt 8e700 - 2.0 * sqrt 2e700) * count db = 0.0 then 0.0 else 0.0)", True),
    ("pi-log-sqrt", "bool",
     "return (((pi + log 2.0) * sqrt 2.0 - sqrt 2.0 * pi - sqrt 2.0 * log 2.0) * count db = 0.0)", True),
    ("tiny-nonzero", "real",
     "lapMech (0.1, if (sqrt 2.0 - 1.41421356237309504880168872420969807856967187537694807317667973799073"
     "247846210703885038753432764157) * count db > 0.0 then 0.0 else 0.0)", True),
    ("clamped", "real", "lapMech (0.1, max (0.0, min (1.0, (sqrt 8e700 - 2.0 * sqrt 2e700) * count db)))", True),
    # the verifier leaves these unknown (its encoding of log and exp is weaker), but they run alike
    ("log-huge", "bool", "return ((log 8e700 - 3.0 * log 2.0 - 700.0 * log 10.0) * count db = 0.0)", False),
    ("exp-product", "bool", "return ((exp 1.0 * exp 2.0 - exp 3.0) * count db = 0.0)", False),
    ("expmech-probability", "bool",
     "return ((exp 1.0 / (1.0 + exp 1.0) - 1.0 / (1.0 + exp (0.0 - 1.0))) * count db = 0.0)", False),
    ("half-power", "bool", "return (exp (log 2.0 / 2.0) * count db = sqrt 2.0 * count db)", False),
]


@pytest.mark.parametrize("name, out_type, body, verified", ATTACKS, ids=[a[0] for a in ATTACKS])
def test_adjacent_runs_neither_stop_nor_differ(tmp_path, capsys, name, out_type, body, verified):
    path = tmp_path / f"{name}.pinf"
    path.write_text(HEADER % (out_type, body))
    assert main(["verify", str(path)]) != 0  # the Decidable condition (V010)
    assert "error[V010]" in capsys.readouterr().out
    outputs = []
    for db in ("[]", "[false]", "[true]", "[true; true]"):
        code = main(["run", str(path), "main", "--arg", f"db={db}", "--seed", "3"])
        out, err = capsys.readouterr()
        assert code == 0, err
        outputs.append(out)
    assert len(set(outputs)) == 1
