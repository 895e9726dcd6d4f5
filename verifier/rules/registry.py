"""The rule registry: which rule function handles which construct.

Monadic judgements ``G ⊢ e ~ e :: M[F, δ] {x :: T | =}`` are checked by dispatch on the AST
node class (pure refinements are checked by translation: ``core_rules.check_pure``), and
mechanisms (applications of a built-in returning ``M[...]``) are dispatched by name.
Lookups fail loudly (``NoRule``) when a construct has no rule. Tool builders add a mechanism
with ``register_mechanism``.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple, Type

from verifier.language import ast as A
from verifier.rules.translate import NoRule

_MONADIC: Dict[Type[A.Expr], Callable] = {}
_MECHANISMS: Dict[str, Callable] = {}
_SAFETY: Dict[str, Callable] = {}


def monadic_rule(*node_types: Type[A.Expr]):
    """Register the decorated function as the monadic rule for ``node_types``."""
    def register(fn: Callable) -> Callable:
        for t in node_types:
            if t in _MONADIC:
                raise ValueError(f"two monadic rules for {t.__name__}")
            _MONADIC[t] = fn
        return fn
    return register


def register_mechanism(name: str, rule: Callable, *, safety: Optional[Callable] = None,
                       replace: bool = False) -> None:
    """Register ``rule(builder, ctx, app, args) -> Synth`` for calls ``name (args...)``.

    ``args`` are the argument expressions (the components of the tuple argument). The rule
    returns the derivation node, the privacy cost and the output of the mechanism.
    ``safety(check, ctx, app, args) -> Elem``, if given, checks the call's range conditions
    in one run (the built-in mechanisms have theirs in ``verifier.rules.safety``).
    """
    if name in _MECHANISMS and not replace:
        raise ValueError(f"a rule for mechanism {name} is already registered")
    _MECHANISMS[name] = rule
    if safety is not None:
        _SAFETY[name] = safety


def unregister_mechanism(name: str) -> None:
    _MECHANISMS.pop(name, None)
    _SAFETY.pop(name, None)


def safety_rule(name: str) -> Optional[Callable]:
    """The registered safety rule of mechanism ``name``, if any."""
    return _SAFETY.get(name)


def monadic(node: A.Expr) -> Callable:
    rule = _MONADIC.get(type(node))
    if rule is None:
        raise NoRule(f"no relational rule for {_describe(node)} in a monadic position", node.span)
    return rule


def mechanism(name: str, node: A.Expr) -> Callable:
    rule = _MECHANISMS.get(name)
    if rule is None:
        raise NoRule(f"no rule for the mechanism {name}", node.span)
    return rule


def mechanisms() -> Tuple[str, ...]:
    return tuple(sorted(_MECHANISMS))


def _describe(node: A.Expr) -> str:
    names = {A.App: "an application", A.Var: "a variable", A.If: "an if", A.Match: "a match",
             A.Let: "a let", A.MLet: "an mlet", A.Return: "a return", A.Observe: "an observe",
             A.Ran: "ran", A.Infer: "infer"}
    return names.get(type(node), type(node).__name__)
