"""The general Lap rule's shifted coupling, shared by the two derivation builders: the
functional language's LapMech-Shift (``verifier.rules.mechanism_rules``, searched by
``verifier.rules.couplings``) and the while-language's Lap rule (``verifier.aprhl.derive``,
searched by ``verifier.aprhl.search``). The kernels (``checker/``) keep their own formulas.

The rule (theorem ``mech.laplace.shift``; Barthe, Gaboardi, Grégoire, Hsu and Strub, "Proving
differential privacy via probabilistic couplings", LICS 2016, Lap-Gen; seed 003's Lap rule):
Laplace noise around ``v<1>`` and around ``v<2>`` with the same scale ``b = 1 / eps`` is
coupled by ``y<2> = y<1> + k`` at cost ``|k + v<1> - v<2>| / b = eps · |k + v<1> - v<2>|``.

A ``Shift`` is one template of ``k``: ``offset + scale · (v<2> - v<1>)``. Scale 0 shifts the
*output* by ``offset``; scale 1 shifts the *noise* by ``offset`` (offset 0: the identity of
the noise, outputs ``v<2> - v<1>`` apart at no cost).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Optional, Tuple

from obligations import terms as T
from obligations.records import record

#: the offsets every Lap site tries, in order of preference (then the claim's constants)
OFFSETS = (Fraction(0), Fraction(1), Fraction(-1), Fraction(2), Fraction(-2))


def lap_shift_cost(k: T.Term, v1: T.Term, v2: T.Term, *, eps: Optional[T.Term] = None,
                   scale: Optional[T.Term] = None) -> T.Term:
    """The cost of coupling Laplace noise around ``v1`` and ``v2`` by ``y<2> = y<1> + k``:
    ``eps · |k + v1 - v2|`` given the rate ``eps``, or ``|k + v1 - v2| / scale`` given the
    scale (exactly one of the two)."""
    if (eps is None) == (scale is None):
        raise ValueError("give the rate eps or the scale, not both")
    distance = T.abs_(T.add(k, T.sub(v1, v2)))
    return T.mul(eps, distance) if scale is None else T.div(distance, scale)


def fraction_text(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


@record
class Shift:
    """A coupling of Laplace noise around ``v``: run 2's output is run 1's plus
    ``offset + scale · (v<2> - v<1>)``. Under Pointwise-Value (``verifier.rules.couplings``)
    the offset may apply only where the output value v is ``at`` (an integer literal, or a
    name of a value equal in both runs), 0 elsewhere."""

    offset: Fraction
    scale: int
    at: Optional[str] = None
    #: taken around the value the noise is later added to (``X + y``, the while-language's
    #: ``verifier.aprhl.derive.addends``): run 2's ``X + y`` is run 1's plus ``offset``
    added: bool = False

    def term(self, v1: T.Term, v2: T.Term, guard: Optional[T.Term] = None) -> T.Term:
        """``guard``: the condition ``at = v`` (required when ``at`` is set)."""
        offset = T.real(self.offset)
        if self.at is not None:
            if guard is None:
                raise ValueError("a shift at an output value needs its guard")
            offset = T.ite(guard, offset, T.real(0))
        parts = [offset] if self.offset or not self.scale else []
        if self.scale:
            parts.append(T.sub(v2, v1))
        return parts[0] if len(parts) == 1 else T.add(*parts)

    def as_json(self) -> dict:
        out = {"offset": fraction_text(self.offset), "scale": self.scale}
        if self.at is not None:
            out["at"] = self.at
        if self.added:
            out["added"] = True
        return out

    def text(self) -> str:
        offset = fraction_text(self.offset)
        if self.at is not None:
            from verifier.language.resolve import written
            offset = f"({offset} if v = {written(self.at)} else 0)"
        if self.added:
            return f"(X + x)<2> = (X + x)<1> + {offset}"
        if not self.scale:
            return f"x<2> = x<1> + {offset}"
        return f"noise<2> = noise<1> + {offset}"


IDENTITY = Shift(Fraction(0), 0)


def shift_templates(same_value: bool, constants: Iterable[Fraction] = ()) -> Tuple[Shift, ...]:
    """The shifts a site tries, in order: small offsets of the output and of the noise, then
    the constants of the claim (when the value is the same term in both runs, noise and
    output shifts are one thing)."""
    offsets = list(OFFSETS) + [c for c in constants if c not in OFFSETS]
    scales = (0,) if same_value else (0, 1)
    return tuple(Shift(o, s) for o in offsets for s in scales)


@record
class PointShift:
    """A shift under the Pointwise rule: at the iteration where the loop counter ``i`` is the
    output value ``v``, ``at``; at the others, ``other`` (the LICS 2016 proofs of Report Noisy
    Max and AboveThreshold: the chosen query shifted, the others coupled by the identity)."""

    at: Shift
    other: Shift

    def term_at(self, i: T.Term, v: T.Term, v1: T.Term, v2: T.Term) -> T.Term:
        return T.ite(T.eq(i, v), self.at.term(v1, v2), self.other.term(v1, v2))

    def text(self) -> str:
        return f"if i = v then {self.at.text()} else {self.other.text()}"


def point_templates() -> Tuple[PointShift, ...]:
    """The pointwise templates of a ``Lap`` in a loop: the output shifted by a small offset at
    the iteration v, the noise (or the draw) coupled by the identity elsewhere."""
    return tuple(PointShift(Shift(o, 0), other) for o in OFFSETS[1:]
                 for other in (Shift(Fraction(0), 1), IDENTITY))


@record
class CaseShift:
    """A shift chosen per branch of the ``if`` that follows the draw (the Case-Output rule of
    the functional language, ``verifier.rules.couplings``, in the while-language: the
    randomness alignment of LightDP and ShadowDP): where run 1's guard ``C<1>`` holds after
    the draw, ``then``; elsewhere ``else_``. The guard is evaluated on run 1's state only, and
    the derivation must prove the runs take the same branch (``C<1> = C<2>``): run 1's draws
    taking *then* land where run 2 takes *then*, the others where it does not, so the
    alignment (a translation on each side) is injective. Its cost is the Lap rule's for the
    shift of the branch taken (charged on that path)."""

    then: Shift
    else_: Shift

    def term_case(self, guard1: T.Term, v1: T.Term, v2: T.Term) -> T.Term:
        """The shift of the draw: ``ite (C<1>, then, else)`` (``guard1`` is ``C<1>``)."""
        return T.ite(guard1, self.then.term(v1, v2), self.else_.term(v1, v2))

    def text(self) -> str:
        return f"if C<1> then {self.then.text()} else {self.else_.text()}"


def case_templates(same_value: bool = False) -> Tuple[CaseShift, ...]:
    """The per-branch templates of a ``Lap`` followed by an ``if`` on its value: the output
    shifted by a small offset on one side, the noise (or the draw) coupled by the identity on
    the other (the sparse vector technique's alignment: an answer above the threshold in run 1
    is moved above it in run 2). Each shift is tried on the *then* side and at once on the
    *else* side (the mirror image: ``if x < th then .. else (above) ..``); offsets 1, 2, -1,
    -2 in that order (2: a noise drawn around 0 and added to an answer that moves by up to 1,
    LightDP's alignment of the sparse vector technique). ``same_value``: the center is one term in both runs, where the noise's identity and
    the draw's are one template."""
    shifted = [Shift(o, 0) for o in sorted(OFFSETS[1:], key=lambda o: (o < 0, abs(o)))]
    plain = (IDENTITY,) if same_value else (Shift(Fraction(0), 1), IDENTITY)
    return tuple(t for s in shifted for p in plain for t in (CaseShift(s, p), CaseShift(p, s)))


def added_templates() -> Tuple[Shift, ...]:
    """The templates of a draw whose noise is later added to ``X`` (``X + y``) that its own
    templates do not already give: ``X + y`` moved by a small offset (the noise's own shifts,
    which leave ``X<2> - X<1>`` between the two runs' sums, are ``shift_templates``)."""
    return tuple(Shift(o, 0, added=True) for o in OFFSETS)


def added_case_templates() -> Tuple[CaseShift, ...]:
    """The per-branch templates of such a draw beyond ``case_templates``: ``X + y`` moved by a
    small offset on one side, the noise's identity (or ``X + y`` kept equal) on the other."""
    kept = (Shift(Fraction(0), 1), Shift(Fraction(0), 0, added=True))
    shifted = [Shift(o, 0, added=True) for o in sorted(OFFSETS[1:], key=lambda o: (o < 0, abs(o)))]
    return tuple(t for s in shifted for p in kept for t in (CaseShift(s, p), CaseShift(p, s)))
