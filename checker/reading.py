"""Reading a certificate's terms and obligations, each distinct (sub-)term once.

A certificate repeats its terms: a val's assumptions are hypotheses of most of its
obligations, and the same cost terms recur along a derivation and inside larger terms.
``Reader.term`` reads a term JSON as ``obligations.terms.term_from_json`` does, through the
same sort-checking constructors, but builds each distinct operation or application once
(keyed by its operator or function declaration and its arguments, already read), so equal
sub-terms are one object and the term caches of ``obligations`` (free variables, printing,
lowering) answer by identity. Constants, variables and quantified terms are read by
``term_from_json`` itself, keyed by their fields and the fields' JSON types (so ``true`` is
not taken for ``1``), or by their JSON text. Nothing read is trusted: the kernel checks
that each obligation read prints back to exactly its JSON (``Obligation.to_json``) and
hashes to its id.
"""
from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Tuple

from obligations import terms as T
from obligations.model import LemmaUse, Named, Obligation, ObligationKind, Provenance

#: a vocabulary, and its number among those read (applications are resolved in it)
Vocabulary = Tuple[int, T.Vocabulary]


class Reader:
    def __init__(self) -> None:
        self._terms: Dict[Tuple, T.Term] = {}
        self._vocabularies: Dict[str, Vocabulary] = {}

    def vocabulary(self, data: Mapping[str, Any]) -> Vocabulary:
        text = json.dumps(data)
        if text not in self._vocabularies:
            self._vocabularies[text] = (len(self._vocabularies), T.Vocabulary.from_json(data))
        return self._vocabularies[text]

    def term(self, data: Mapping[str, Any], vocabulary: Vocabulary) -> T.Term:
        """``term_from_json(data, vocabulary)``, the same object for equal terms."""
        tag = data["t"]
        if tag == "op":
            args = tuple([self.term(a, vocabulary) for a in data["args"]])
            key: Tuple = (tag, data["op"], args)
            if key not in self._terms:
                self._terms[key] = T.Op(T.OpKind(data["op"]), args)
        elif tag == "apply":
            args = tuple([self.term(a, vocabulary) for a in data["args"]])
            func = vocabulary[1].lookup(data["fn"], [a.sort for a in args])
            key = (tag, func, args)
            if key not in self._terms:
                self._terms[key] = T.Apply(func, args)
        else:
            if tag in ("forall", "exists"):  # its body may apply functions of the vocabulary
                key = (vocabulary[0], json.dumps(data))
            else:  # a constant or a variable: its fields, with their JSON types (true is not 1)
                key = tuple([(k, type(v), v) for k, v in data.items()])
            if key not in self._terms:
                self._terms[key] = T.term_from_json(data, vocabulary[1])
        return self._terms[key]

    def obligation(self, data: Mapping[str, Any]) -> Obligation:
        """``Obligation.from_json(data)``, its terms read by ``term``, but with the id its
        content hashes to (not the one ``data`` records)."""
        vocabulary = self.vocabulary(data["vocabulary"])

        def named(items) -> Tuple[Named, ...]:
            return tuple(Named(n["name"], self.term(n["term"], vocabulary)) for n in items)

        lemma = data.get("lemma")
        return Obligation(
            kind=ObligationKind(data["kind"]),
            hypotheses=named(data["hypotheses"]),
            goal=self.term(data["goal"]["term"], vocabulary),
            axioms=named(data.get("axioms", ())),
            provenance=Provenance.from_json(data["provenance"]),
            lemma=None if lemma is None else LemmaUse.from_json(lemma, vocabulary[1]))
