"""``privinfer lemmas [--check] [--json] ...``: list the lemma library and re-check its proofs.

Without options, prints one line per lemma: id, status, title and source. With ``--check``,
re-checks every proof artifact (sympy, Z3, Arb; see docs/lemmas.md) and prints one line per
lemma, ``ok`` or ``FAILED: reason``; the exit status is 0 if every artifact re-checks and 1
otherwise. ``--artifacts DIR`` checks the artifacts stored in DIR (as written by ``--export``)
against the library's statements instead of the built-in ones; ``--id`` restricts the command
to some lemmas (``family/k=K`` selects a Dirichlet dimension); ``--show ID`` prints one lemma
with its artifact; ``--json`` prints machine-readable output. The lemmas whose built-in artifacts
re-check are recorded for the certificate kernel (``checker/lemma_records.py``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List

from verifier.errors import error
from verifier.output_paths import check_output_dir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", action="store_true",
                        help="re-check every proof artifact (exit 1 if one fails)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--id", action="append", default=[], metavar="ID",
                        help="only this lemma (repeatable; e.g. dirichlet.hellinger.adjacent/k=5)")
    parser.add_argument("--artifacts", metavar="DIR",
                        help="check the artifacts stored in DIR instead of the built-in ones "
                             "(implies --check)")
    parser.add_argument("--export", metavar="DIR",
                        help="write every artifact to DIR as <id>.json ('/' becomes '@')")
    parser.add_argument("--show", metavar="ID", help="print one lemma and its artifact")
    parser.add_argument("--trust", action="store_true",
                        help="with --check: also print each lemma's trust base")


def _select(ids: List[str]):
    import lemmas
    from lemmas.registry import UnknownLemmaError
    if not ids:
        return lemmas.all_lemmas()
    out = []
    for i in ids:
        try:
            out.append(lemmas.get(i))
        except UnknownLemmaError as exc:
            raise error("U002", f"no lemma {exc.args[0]!r}",
                        hint="`privinfer lemmas` lists the library") from None
    return out


def run(args: argparse.Namespace) -> int:
    from lemmas import checking

    selected = _select(args.id)
    if args.show:
        lemma = _select([args.show])[0]
        out = {**lemma.to_json(), "trust": list(checking.trust_base(lemma)),
               "artifact": lemma.artifact}
        print(json.dumps(out, indent=1))
        return 0
    if args.export:
        check_output_dir(args.export, "--export")
        try:
            paths = checking.export_artifacts(args.export, selected)
        except OSError as exc:
            raise error("U003", f"--export {args.export}: cannot write here: {exc.strerror or exc}") from None
        if not args.json:
            print(f"wrote {len(paths)} artifacts to {args.export}")
        else:
            print(json.dumps({"exported": paths}, indent=1))
        if not (args.check or args.artifacts):
            return 0
    if args.artifacts or args.check:
        stored = None
        if args.artifacts:
            if not os.path.isdir(args.artifacts):
                raise error("U001", f"{args.artifacts} is not a directory")
            stored = checking.load_artifacts(args.artifacts)
        results = checking.check_library(selected, stored)
        if stored is None:  # the library's own artifacts: the certificate kernel may reuse this
            from checker.lemma_records import LemmaRecord, facts_of, record_path
            ok = {r.lemma_id for r in results if r.ok}
            LemmaRecord(record_path()).add(facts_of(l) for l in selected if l.id in ok)
        if args.json:
            print(json.dumps({"ok": all(r.ok for r in results),
                              "lemmas": [r.to_json() for r in results]}, indent=1))
        else:
            for r in results:
                print(r.line())
                if args.trust and r.ok:
                    print("          trust: " + ", ".join(r.trust))
            failed = sum(not r.ok for r in results)
            print(f"{len(results) - failed} of {len(results)} artifacts re-check"
                  + (f"; {failed} FAILED" if failed else ""))
        sys.stdout.flush()
        return 0 if all(r.ok for r in results) else 1
    if args.json:
        print(json.dumps([l.to_json() for l in selected], indent=1))
        return 0
    width = max(len(l.id) for l in selected) if selected else 0
    for l in selected:
        print(f"{l.id:<{width}}  {l.status:<10}  {l.title}  [{l.source}]")
    return 0
