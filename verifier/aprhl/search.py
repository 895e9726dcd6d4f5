"""The shift search of the while-language (docs/aprhl.md, "The shift search").

When the derivation with every unannotated ``x := $ Lap (b, e)`` coupled by the identity of the
draws fails, ``search_shifts`` looks for a shift per such site (the templates of
``verifier.shifts``: ``offset + scale · (e<2> - e<1>)`` with offsets 0, ±1, ±2: output and noise
shifts) under which every obligation holds, as the functional language's coupling search
(``verifier.rules.couplings``) does: each build names a site's shift by a variable ``sh'LdC``
defined by a fact, the first failing obligation depends on the sites whose variables it
mentions, their shifts in that build are a nogood, and the next assignment is the first (earliest
templates first) that no nogood rules out. An obligation that mentions no shift ends
the search (no coupling changes it). The search builds at most ``MAX_ATTEMPTS`` derivations (a
count, not a time: a verdict does not depend on the machine's load). An assignment is taken
only when the final derivation — shifts written into the ``Lap`` rule, no shift variable, which
is what the certificate records and the kernel re-derives — has every obligation verified.
"""
from __future__ import annotations

import itertools
import re
from typing import Dict, FrozenSet, List, Tuple

from obligations import terms as T
from verifier.aprhl.derive import attempt
from verifier.language import whilelang as W
from verifier.shifts import (IDENTITY, added_case_templates, added_templates, case_templates,
                             point_templates, shift_templates)

#: at most this many derivations are built by one search
MAX_ATTEMPTS = 24
#: at most this many sites are searched (the others keep the identity)
MAX_SITES = 4


def search_shifts(proc: W.Proc, types: W.ProcTypes, session, rlimit, first, pointwise=False,
                  onesided=False, probe_cache=None):
    """A verified report under shifts found by the search, or None. ``pointwise``: under the
    Pointwise rule, where a ``Lap`` in a loop may also be shifted at the iteration whose
    counter is the output value (``verifier.shifts.point_templates``). A ``Lap`` followed at once
    by an ``if`` on its value may also be shifted per branch of that ``if``
    (``verifier.shifts.case_templates``, rule Lap-Case). ``probe_cache``: shared by the
    derivations (``verifier.aprhl.derive.attempt``)."""
    sites = sorted(first.sites)[:MAX_SITES]
    options: Dict[Tuple[int, int], Tuple] = {}
    for k in sites:
        plain = shift_templates(first.sites[k])
        in_loop = k in first.site_counters
        # the pointwise templates compare the loop's counter with the output: an index
        point = point_templates() if pointwise and in_loop and index_output(proc) else ()
        # a Lap followed by an if on its value: a shift per branch (Lap-Case), after them
        case = case_templates(first.sites[k]) if k in first.case_sites else ()
        # noise later added to a value that differs between the runs: that sum moved. Added
        # to an int (counting queries), its moves are whole and come first; added to a real,
        # they are seldom on the draws' grid and come after every template of the draw's own
        added = ()
        if k in first.added_sites:
            # per branch first, as the draw's own
            added = (added_case_templates() if k in first.case_sites else ()) + added_templates()
        if k in first.int_added_sites:
            options[k] = plain[:1] + point + added + case + plain[1:]
        else:
            options[k] = plain[:1] + point + case + plain[1:] + added
    nogoods: List[FrozenSet] = []
    order = _assignments(sites, options)
    for _ in range(MAX_ATTEMPTS):
        assignment = next((a for a in order if not _ruled_out(a, nogoods)), None)
        if assignment is None:
            return None
        report, builder = attempt(proc, types, session, rlimit, assignment, shift_vars=True,
                                  first_failure=True, pointwise=pointwise,
                                  onesided=onesided, probe_cache=probe_cache)
        if builder is None:
            return None
        if report.verdict == "verified":
            final, _ = attempt(proc, types, session, rlimit, assignment, pointwise=pointwise,
                               onesided=onesided, probe_cache=probe_cache)
            return final if final.verdict == "verified" else None
        deps = dependencies(report.data_failing, sites, builder.loop_sites)
        if not deps:
            return None   # no shift enters the failing obligation
        nogoods.append(frozenset((k, assignment.get(k, IDENTITY)) for k in deps))
    return None


def index_output(proc: W.Proc) -> bool:
    """The procedure returns an int (an index, which a loop counter can be compared with)."""
    return proc.ret.base in ("int", "nat")


def dependencies(ob, sites, loop_sites) -> List[Tuple[int, int]]:
    """The sites a failing obligation depends on: those whose shift variable it mentions
    (goal or hypotheses), and, when it mentions a loop's head (``x'LhC``: the invariants the
    inference kept depend on the shifts in the loops), the sites in loops."""
    names = {v.name for v in T.free_vars(ob.goal, *(h.term for h in ob.hypotheses))}
    deps = [k for k in sites if f"sh'{k[0]}d{k[1]}" in names]
    if any(re.search(r"'\d+h\d+$", n) for n in names):
        deps += [k for k in sites if k in loop_sites and k not in deps]
    return deps


def _assignments(sites, options):
    """Every assignment of templates to the sites, the earliest templates first (the sum of
    their ranks; the identity is the first template of every site), then the fewest shifts."""
    ranked = sorted(itertools.product(*(range(len(options[k])) for k in sites)),
                    key=lambda idx: (sum(idx), sum(1 for i in idx if i)))
    for idx in ranked:
        yield {k: options[k][i] for k, i in zip(sites, idx)}


def _ruled_out(assignment, nogoods) -> bool:
    return any(all(assignment.get(k, IDENTITY) == s for k, s in ng) for ng in nogoods)
