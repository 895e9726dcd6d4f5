"""The exact output law of a while-procedure on given inputs (refutations and ``audit`` of
``.pwhile`` files).

A run of a procedure is turned into an M-value of the functional language's monad
(``verifier.semantics.monad``): ``x := $ Lap (b, e)`` is ``Bind (Laplace (e, b), k)`` where the
continuation ``k`` runs the rest of the procedure with the draw, and the end of the procedure is
``Return`` of its output. The law of that M-value is then computed by the code the functional
language uses (``verifier.laws.output_law``): one release is the exact law of the grid values
the sampler of ``run`` releases (``verifier.semantics.released``), a program that only compares
its noisy values or releases them unchanged has the exact law of ``verifier.semantics.compared``
(its paths, each a conjunction of difference constraints integrated exactly by
``verifier.semantics.piecewise``, enclosed for the rounding sampler), a program without noise a
point mass. Anything else (arithmetic on two noisy values, noise around a noisy centre) is R003:
no law, so no witness.

The continuation is pure: ``k`` re-runs the procedure from its start with the draws so far
(``_Replay``: the first draws are taken from the list, the next ``Lap`` stops the run and asks
for one more), so the explorations of ``compared`` may call it again with other values. The
evaluator is ``run``'s (``verifier.aprhl.run.Evaluator``): the same exact arithmetic, the same
run-time errors, the same noise (``monad.Laplace`` samples with ``laplace_exact``, as ``run``).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Dict, Optional, Tuple

from verifier.aprhl.run import Evaluator
from verifier.errors import PrivInferError, error
from verifier.language import whilelang as W
from verifier.semantics import compared, monad, reals
from verifier.semantics.values import ConsList, SymbolicEscape

#: statements one run of a procedure (one replay) may execute while its law is computed
STEPS = 20_000
#: work (statements executed and list elements copied, over every replay) the laws computed
#: with one ``Work`` counter may take in all: a loop that does not end replays from the start
#: at each of its draws, and one that grows a list copies it at each step
TOTAL_WORK = 2_000_000


class Work:
    """A budget of work shared by the replays of one or more laws (``TOTAL_WORK``)."""

    def __init__(self, limit: int = TOTAL_WORK):
        self.spent, self.limit = 0, limit

    def spend(self, amount: int, span) -> None:
        self.spent += amount
        if self.spent > self.limit:
            raise error("R010", f"the laws took more than {self.limit} steps of work", span)


class _Need(BaseException):
    """The replay reached a ``Lap`` beyond the draws it was given (not an error of the
    program: a ``BaseException``, so that nothing on the way mistakes it for one)."""

    def __init__(self, center: Any, scale: Any, span):
        super().__init__("draw")
        self.center, self.scale, self.span = center, scale, span


class _Replay(Evaluator):
    """``run``'s evaluator with the draws of ``Lap`` taken from ``draws``."""

    def __init__(self, proc: W.Proc, types: W.ProcTypes, draws: Tuple[Any, ...], steps: int,
                 work: Work):
        super().__init__(proc, types, None, max_steps=steps)
        self.draws, self.used, self.work = draws, 0, work

    def tick(self, span) -> None:
        super().tick(span)
        self.work.spend(1, span)

    def exec(self, s, env: Dict[str, Any]) -> None:
        if not isinstance(s, W.Sample):
            super().exec(s, env)
            if isinstance(s, W.Assign) and isinstance(env.get(s.target), list):
                self.work.spend(len(env[s.target]), s.span)
            return
        self.tick(s.span)
        if self.used < len(self.draws):
            env[s.target] = self.draws[self.used]
            self.used += 1
            return
        b = self.eval(s.scale, env)
        c = self.eval(s.center, env)
        for what, x in (("scale", b), ("centre", c)):
            if not reals.is_exact_number(x) or isinstance(x, bool):
                raise SymbolicEscape(f"the {what} of the Lap at line {s.span.line} is a noisy value")
        if not b > 0:
            raise error("R001", f"the scale of Lap must be positive, got {b}", s.scale.span)
        raise _Need(Fraction(c), Fraction(b), s.span)


def procedure_law(proc: W.Proc, types: W.ProcTypes, args: Dict[str, Any],
                  steps: int = STEPS, work: Optional[Work] = None) -> monad.MValue:
    """The run of ``proc`` on ``args`` (run's values: ``int``, ``Fraction``, lists) as an
    M-value whose outputs are values of the functional language (lists as ``ConsList``). A
    run-time error of the program (``PrivInferError``) is raised with ``certain`` set when it
    is raised on every run: before any noisy value was compared (``compared.certain_path``).
    ``work``: the budget of all the replays (R010 beyond it; a fresh ``Work`` when None)."""
    args = dict(args)
    work = Work() if work is None else work

    def build(draws: Tuple[Any, ...]) -> monad.MValue:
        replay = _Replay(proc, types, draws, steps, work)
        try:
            value = replay.run(dict(args))
        except _Need as need:
            return monad.Bind(monad.Laplace(need.center, need.scale, need.span),
                              lambda v: build(draws + (v,)), need.span)
        except PrivInferError as exc:   # a run-time error of the program: on every run?
            if not hasattr(exc, "certain"):
                exc.certain = compared.certain_path()
            raise
        except (TypeError, ArithmeticError, ValueError) as exc:
            # an operation the values do not support: a noisy value where a number is needed
            raise SymbolicEscape(f"the procedure computes with a noisy value ({exc})") from None
        return monad.Return(output_value(value))

    return build(())


def output_value(v: Any) -> Any:
    """A while-value as a value of the functional language (lists are ``ConsList``)."""
    if isinstance(v, list):
        return ConsList.from_sequence([output_value(x) for x in v])
    return v
