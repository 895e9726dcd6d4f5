"""The kernel's fast reading of the certificate schema (``checker.jsonschema_subset``).

It must accept only what the JSON Schema accepts (the kernel then skips the ``jsonschema``
package), and refuse what it does not implement. Checked against ``jsonschema`` on
mutations of a real certificate: every key deleted, every value replaced by values of
other types, and keys added."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from checker import kernel
from checker.certify import certificate, dumps
from checker.jsonschema_subset import Subset
from verifier.language.parser import parse_file
from verifier.language.typecheck import typecheck_program
from verifier.verification import verify_program

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "benchmarks" / "programs" / "paper" / "beta_input_expmech.pinf"
REFERENCE = jsonschema.Draft202012Validator(kernel.SCHEMA)
#: values of every JSON type, and the ones Python confuses (True == 1 == 1.0)
VALUES = [None, True, 1.0, -1, "x", [{}], {"t": "const"}, [1, 2, 3, 4]]


@pytest.fixture(scope="module")
def small() -> dict:
    return small_certificate()


def small_certificate() -> dict:
    """A certificate of a shared example, cut down so that the mutations below validate
    quickly (the schema does not relate its parts): a few nodes, no timings, a refuted
    claim's confirmation."""
    program = parse_file(str(PROGRAM.relative_to(ROOT)))
    cert = json.loads(dumps(certificate(verify_program(program, typecheck_program(program)),
                                        program.source, program.file)))
    cert["nodes"] = cert["nodes"][:3]
    cert["claims"].append({"name": "x", "statement": "x :: bool", "verdict": "refuted",
                           "root": None, "disputed": [], "failure": "why", "code": "V008",
                           "confirmation": {"method": "run", "detail": "d", "inputs": [
                               {"parameter": "l", "run1": "[]", "run2": "[true]"}]}})
    cert["timings"] = {}
    return cert


def paths(doc, prefix=()):
    """The paths to every value of ``doc``, but in an array to its first item only (the
    schema says the same of every item), and into the last claim (the refuted one)."""
    yield prefix
    if isinstance(doc, dict):
        items = list(doc.items())
    elif prefix == ("claims",):
        items = [(0, doc[0]), (len(doc) - 1, doc[-1])]
    else:
        items = list(enumerate(doc[:1])) if isinstance(doc, list) else []
    for k, v in items:
        yield from paths(v, prefix + (k,))


def at(doc, path):
    for k in path:
        doc = doc[k]
    return doc


def mutations(doc):
    """Mutate ``doc`` in place, one mutation at a time (yielding the value put in after
    each; restored after): each value replaced by others, deleted; a key added to each
    object."""
    for path in list(paths(doc))[1:]:
        parent, key = at(doc, path[:-1]), path[-1]
        old = parent[key]
        for value in VALUES:
            parent[key] = value
            yield value
        if isinstance(parent, dict):
            del parent[key]
            yield None
        else:
            parent.pop(key)
            yield None
            parent.insert(key, old)
        parent[key] = old
        if isinstance(old, dict):
            old["zz_extra"] = 1
            yield 1
            del old["zz_extra"]


def test_the_subset_accepts_exactly_what_the_schema_accepts(small):
    fast, doc = kernel.VALIDATOR, copy.deepcopy(small)
    assert fast.valid(doc) and REFERENCE.is_valid(doc)
    count = stricter = 0
    for value in mutations(doc):
        count += 1
        reference = REFERENCE.is_valid(doc)
        if fast.valid(doc):
            assert reference, f"accepted a document the schema refuses ({value!r})"
        elif reference:  # stricter (the kernel then asks jsonschema): 1.0 is an integer there
            assert type(value) is float and value.is_integer(), value
            stricter += 1
    assert doc == small
    assert count > 300 and stricter


def test_a_document_the_subset_refuses_is_judged_by_the_schema(small):
    doc = copy.deepcopy(small)
    doc["solver"]["rlimit"] = 5000000.0  # an integer to JSON Schema
    assert not kernel.VALIDATOR.valid(doc) and REFERENCE.is_valid(doc)
    kernel.check_format(doc)  # no Invalid: jsonschema has the last word
    doc["claims"][0]["verdict"] = "maybe"
    with pytest.raises(kernel.Invalid, match="JSON Schema, at claims/0/verdict"):
        kernel.check_format(doc)


@pytest.mark.parametrize("schema", [
    {"type": "object", "format": "date"},
    {"properties": {"a": {"additionalProperties": {"type": "string"}}}},
    {"items": {"$ref": "#/$defs/missing"}},
    {"anyOf": [{"type": "string"}]},
    {"type": "decimal"},
])
def test_a_keyword_the_subset_does_not_implement_is_refused(schema):
    with pytest.raises(ValueError):
        Subset(schema)


def test_subset_semantics():
    s = Subset({"type": "object", "required": ["a"], "additionalProperties": False,
                "properties": {"a": {"enum": [1, "b", None]},
                               "n": {"type": "integer", "minimum": 0},
                               "l": {"type": "array", "items": {"$ref": "#/$defs/s"},
                                     "minItems": 1, "maxItems": 2},
                               "o": {"oneOf": [{"type": "string"}, {"pattern": "^x"}]}},
                "$defs": {"s": {"type": ["string", "null"], "pattern": "^[a-z]+$"}}})
    assert s.valid({"a": 1, "n": 3, "l": ["ab", None], "o": 1})
    for bad in [{}, {"a": True}, {"a": 1.0}, {"a": 2}, {"a": 1, "x": 0}, {"a": 1, "n": -1},
                {"a": 1, "n": True}, {"a": 1, "l": []}, {"a": 1, "l": ["a", "b", "c"]},
                {"a": 1, "l": ["A"]}, {"a": 1, "l": [3]}, {"a": 1, "o": "xy"}, []]:
        assert not s.valid(bad), bad
