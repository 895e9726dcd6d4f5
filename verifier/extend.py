"""Extending privinfer with a new mechanism.

A mechanism is a built-in that returns a computation ``M[T]``. Adding one touches the three
places that know built-ins, and ``add_mechanism`` does all three:

* the simple type checker (``verifier.language.builtins.BUILTINS``): its type;
* the evaluator (``verifier.semantics.evaluator.BUILTINS``): how ``privinfer run`` draws from it;
* the verifier: its relational rule (its privacy cost for the two runs' arguments, registered
  with ``verifier.rules.registry.register_mechanism``) and, optionally, its unary safety
  rule (its range conditions).

The privacy theorem the rule relies on belongs in the lemma library (``lemmas.register``),
so that certificates list it in their trust base. See the README for a worked example.
"""
from __future__ import annotations

from typing import Callable, Optional

from verifier.language import ast as A
from verifier.language import builtins as language_builtins
from verifier.language import types as ty
from verifier.language.parser import parse_simple_type
from verifier.rules import registry
from verifier.translation import translate


def add_mechanism(name: str, type_text: str, evaluate: Callable, rule: Callable, *,
                  meaning: str = "", safety: Optional[Callable] = None) -> None:
    """Add the mechanism ``name``.

    ``type_text`` is its simple type in the surface syntax, e.g. ``"real+ * bool -> M[bool]"``
    (arguments as a tuple). ``evaluate(evaluator, arg, node)`` returns its M-value (see
    ``verifier.semantics.monad``: ``Exponential``, ``Laplace``, ``Release``…). ``rule(builder,
    ctx, app, args) -> Synth`` is its relational rule (see ``verifier.rules.mechanism_rules``
    for the built-in ones). ``safety(check, ctx, app, args) -> Elem`` checks its range
    conditions (see ``verifier.rules.safety``); without one, every argument is checked as
    pure code and the output is a fresh value of the result type.

    Raises ``ValueError`` if ``name`` is already a built-in or the type is not a mechanism's.
    """
    from verifier.semantics import evaluator
    if name in language_builtins.BUILTINS or name in evaluator.BUILTINS:
        raise ValueError(f"{name} is already a built-in")
    syntax = parse_simple_type(type_text, f"<type of {name}>")
    if not (isinstance(syntax, A.TArrow) and isinstance(syntax.cod, A.TMonad)):
        raise ValueError(f"a mechanism's type must be ARGS -> M[T], got {type_text}")
    items = syntax.dom.items if isinstance(syntax.dom, A.TTuple) else (syntax.dom,)
    arity = len(items)
    scheme = ty.generalize(ty.from_syntax(syntax), 0)
    language_builtins.BUILTINS[name] = language_builtins.Builtin(
        name, language_builtins.FUNCTION, type_text, meaning, scheme, arity, arity,
        ranges=tuple(_range_text(t) for t in items))
    evaluator.BUILTINS[name] = evaluate
    translate.MONADIC_BUILTINS.add(name)
    registry.register_mechanism(name, rule, safety=safety or _default_safety(syntax.cod.elem))


def _range_text(t: A.SimpleType) -> Optional[str]:
    """The catalogue's range of an argument of written type ``t`` (``real+``, ``nat list``...):
    None when the type says nothing of its values beyond their simple type."""
    from verifier.language.pretty import pretty_type
    from verifier.translation import logic as L
    from verifier.translation.ranges import value_facts
    from verifier.translation.symbolic import Scalar
    from obligations import terms as T
    sort = L.sort_of_type(t)
    if sort is None:
        return None
    return pretty_type(t) if value_facts(t, Scalar(T.Var("_", sort))) else None


def _default_safety(result: A.SimpleType) -> Callable:
    def check(safety, ctx, app, args):
        from verifier.rules.safety import of_type
        from verifier.translation.translate import flatten_app
        head, _ = flatten_app(app)
        safety.arguments(ctx, head.name, args)  # the ranges of its written type
        return of_type(result)
    return check


def remove_mechanism(name: str) -> None:
    """Undo ``add_mechanism(name, ...)`` (for tests and interactive sessions)."""
    from verifier.semantics import evaluator
    language_builtins.BUILTINS.pop(name, None)
    evaluator.BUILTINS.pop(name, None)
    translate.MONADIC_BUILTINS.discard(name)
    registry.unregister_mechanism(name)
