"""A fast validator for the JSON Schema keywords ``certificate.schema.json`` uses.

Importing the ``jsonschema`` package and running its validator take longer than checking a
small certificate (about 0.2 s and 0.05-0.1 s), so the kernel first runs this validator: a
direct reading of the keywords ``type``, ``enum``, ``const``, ``pattern``, ``properties``,
``required``, ``additionalProperties: false``, ``items``, ``minItems``, ``maxItems``,
``minimum``, ``oneOf``, ``allOf``, ``if``/``then`` and local ``$ref``s (``#/$defs/...``).

It is never more lenient than the JSON Schema semantics (draft 2020-12): ``valid`` accepts
only documents the schema accepts. Where the two could differ it is stricter (``1.0`` is not
an integer here, ``true`` is not ``1`` in an ``enum``), and the kernel then asks the
``jsonschema`` package, which has the last word and names what is wrong. ``Subset`` refuses
a schema with any other keyword (or another value of ``additionalProperties``), so that an
edit of the schema cannot make this validator silently weaker than it.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Mapping

#: keywords that do not constrain documents
ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description"})
KEYWORDS = frozenset({"type", "enum", "const", "pattern", "properties", "required",
                      "additionalProperties", "items", "minItems", "maxItems", "minimum",
                      "oneOf", "allOf", "if", "then", "$ref"}) | ANNOTATIONS
_TYPES = {"object": (dict,), "array": (list,), "string": (str,), "integer": (int,),
          "number": (int, float), "boolean": (bool,), "null": (type(None),)}


def _same(a: Any, b: Any) -> bool:
    """JSON equality, stricter than Python's (``True != 1``, ``1 != 1.0``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


Check = Callable[[Any], bool]


class Subset:
    """A schema of the supported subset, compiled once into checks (one closure per keyword)."""

    def __init__(self, schema: Mapping[str, Any]):
        definitions = schema.get("$defs", {})
        self.defs: Dict[str, Check] = dict.fromkeys(definitions)  # known to $ref from now on
        for name, d in definitions.items():
            self.defs[name] = self._compile(d)
        #: whether a document satisfies the schema (False: it may not)
        self.valid: Check = self._compile(schema)

    def _compile(self, s: Any) -> Check:
        """The check of schema ``s``; ``ValueError`` for a keyword this module does not
        implement."""
        if not isinstance(s, dict):
            raise ValueError(f"not a schema: {s!r}")
        unknown = set(s) - KEYWORDS
        if unknown:
            raise ValueError(f"unsupported JSON Schema keyword {sorted(unknown)[0]}")
        checks: List[Check] = []
        if "$ref" in s:
            ref = s["$ref"]
            name = ref[len("#/$defs/"):]
            if not ref.startswith("#/$defs/") or name not in self.defs:
                raise ValueError(f"unsupported $ref {ref}")
            checks.append(lambda x: self.defs[name](x))
        if "type" in s:
            names = [s["type"]] if isinstance(s["type"], str) else s["type"]
            if not set(names) <= set(_TYPES):
                raise ValueError(f"unknown type in {names}")
            types = tuple(t for n in names for t in _TYPES[n])
            bools = "boolean" in names
            checks.append(lambda x: isinstance(x, types) and (bools or not isinstance(x, bool)))
        if "enum" in s:
            values = s["enum"]
            checks.append(lambda x: any(_same(x, v) for v in values))
        if "const" in s:
            value = s["const"]
            checks.append(lambda x: _same(x, value))
        if "pattern" in s:
            pattern = re.compile(s["pattern"])
            checks.append(lambda x: not isinstance(x, str) or pattern.search(x) is not None)
        if "required" in s:
            required = tuple(s["required"])
            checks.append(lambda x: not isinstance(x, dict) or all(k in x for k in required))
        if "additionalProperties" in s:
            if s["additionalProperties"] is not False:
                raise ValueError("only additionalProperties: false is supported")
            known = frozenset(s.get("properties", ()))
            checks.append(lambda x: not isinstance(x, dict) or known.issuperset(x))
        if "properties" in s:
            props = [(k, self._compile(sub)) for k, sub in s["properties"].items()]
            checks.append(lambda x: not isinstance(x, dict) or all(
                k not in x or check(x[k]) for k, check in props))
        if "items" in s:
            item = self._compile(s["items"])
            checks.append(lambda x: not isinstance(x, list) or all(item(i) for i in x))
        if "minItems" in s or "maxItems" in s:
            low, high = s.get("minItems", 0), s.get("maxItems", float("inf"))
            checks.append(lambda x: not isinstance(x, list) or low <= len(x) <= high)
        if "minimum" in s:
            least = s["minimum"]
            checks.append(lambda x: isinstance(x, bool) or not isinstance(x, (int, float))
                          or x >= least)
        if "oneOf" in s:
            alternatives = [self._compile(sub) for sub in s["oneOf"]]
            checks.append(lambda x: sum(a(x) for a in alternatives) == 1)
        if "allOf" in s:
            parts = [self._compile(sub) for sub in s["allOf"]]
            checks.append(lambda x: all(p(x) for p in parts))
        if "if" in s:
            condition, then = self._compile(s["if"]), self._compile(s.get("then", {}))
            checks.append(lambda x: not condition(x) or then(x))
        elif "then" in s:
            self._compile(s["then"])
        if len(checks) == 1:
            return checks[0]
        return lambda x: all(c(x) for c in checks)
