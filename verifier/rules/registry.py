"""The rule registry: which rule function handles which construct.

Monadic judgements ``G ⊢ e ~ e :: M[F, δ] {x :: T | =}`` are checked by dispatch on the AST
node class (pure refinements are checked by translation: ``core_rules.check_pure``), and
mechanisms (applications of a built-in returning ``M[...]``) are dispatched by name.
Computations in a bound position (``mlet x = HERE in ...``) are synthesised — their cost and
output — by the rules registered with ``synthesis_rule`` (``Builder.synth_monadic``, after
EqualInputs).

A construct may have several rules, registered with ``fallback=True`` after the first: they
are tried in order, the next one when a rule raises ``NotApplicable`` for the node (e.g. If,
when the two runs may take different branches, then LiftIf). Lookups fail loudly
(``NoRule``) when a construct has no rule, or none applies. Tool builders add a mechanism with
``register_mechanism``.

A rule that derives a whole judgement rather than one construct — a definition against its
val, the Safety premise, EqualInputs, App-Val, Pointwise, the higher-order rules — registers
under its name with ``judgement_rule`` and is reached with ``judgement``: the builder and the
rules call one another's judgements through this table, never by importing a rule module
above their own.

This module imports no rule: each rule module registers its rules with these decorators when
it is imported, and ``verifier.rules.catalogue`` imports them all, in the order that fixes
the fallbacks (docs/architecture.md, "The relational rules").
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple, Type

from verifier.language import ast as A
from verifier.translation.translate import NoRule, NotApplicable

_MONADIC: Dict[Type[A.Expr], List[Callable]] = {}
_SYNTHESIS: Dict[Type[A.Expr], List[Callable]] = {}
_MECHANISMS: Dict[str, Callable] = {}
_SAFETY: Dict[str, Callable] = {}


def _registrar(table: Dict[Type[A.Expr], List[Callable]], what: str,
               node_types: Tuple[Type[A.Expr], ...], fallback: bool, first: bool = False):
    def register(fn: Callable) -> Callable:
        for t in node_types:
            if first:
                if t not in table:
                    raise ValueError(f"a first {what} rule for {t.__name__}, which has no rule")
                table[t].insert(0, fn)
                continue
            if (t in table) != fallback:
                raise ValueError(f"two {what} rules for {t.__name__}" if not fallback else
                                 f"a fallback {what} rule for {t.__name__}, which has no rule")
            table.setdefault(t, []).append(fn)
        return fn
    return register


def monadic_rule(*node_types: Type[A.Expr], fallback: bool = False, first: bool = False):
    """Register the decorated function ``rule(builder, ctx, e) -> Derivation`` as the monadic
    rule for ``node_types`` (with ``fallback``: tried when the earlier ones do not apply; with
    ``first``: tried before the construct's rule, which applies when it raises
    ``NotApplicable`` — e.g. Case-Output before BindM, under a pointwise claim only)."""
    return _registrar(_MONADIC, "monadic", node_types, fallback, first)


def synthesis_rule(*node_types: Type[A.Expr], fallback: bool = False, first: bool = False):
    """Register ``rule(builder, ctx, e) -> Synth`` as the synthesis rule for ``node_types`` in a
    bound position (with ``fallback``: tried when the earlier ones do not apply; with
    ``first``: tried before the construct's rule, which applies when it raises
    ``NotApplicable``)."""
    return _registrar(_SYNTHESIS, "synthesis", node_types, fallback, first)


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
    return _dispatch(_MONADIC, node, "in a monadic position")


def synthesis(node: A.Expr) -> Callable:
    return _dispatch(_SYNTHESIS, node, "in the bound position of an mlet")


def _dispatch(table: Dict[Type[A.Expr], List[Callable]], node: A.Expr, where: str) -> Callable:
    rules = table.get(type(node))
    if not rules:
        raise NoRule(f"no relational rule for {_describe(node)} {where}", node.span)
    if len(rules) == 1:
        return rules[0]

    def first_that_applies(b, ctx, e):
        reasons = []
        for rule in rules:
            try:
                return rule(b, ctx, e)
            except NotApplicable as exc:
                if exc.node is not e:
                    raise
                reasons.append(exc)
            except NoRule as exc:
                notes = [r.note for r in reasons if r.note]
                if not notes:
                    raise
                raise NoRule(exc.message, exc.span, exc.code,
                             notes=exc.notes + tuple(notes)) from exc
        raise NoRule("; ".join(r.message for r in reasons), reasons[0].span)
    return first_that_applies


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


# ---- infer ------------------------------------------------------------------------------------

_INFER: List[Callable] = []


def infer_rule(fn: Callable) -> Callable:
    """Register ``rule(builder, model, run, env) -> SymValue``, the value of ``infer model``
    in run ``run``: the rules are tried in the order registered, the next one when a rule
    raises ``NoRule`` (the closed forms first, then the paper's Infer rule)."""
    _INFER.append(fn)
    return fn


def infer_rules() -> Tuple[Callable, ...]:
    return tuple(_INFER)


# ---- judgements -------------------------------------------------------------------------------

#: ``rule(builder, val, decl, pointwise=False, steps=False) -> Derivation``: Abs or
#: LetRec-Induction, a definition against its val (``core_rules.check_definition``)
DEFINITION = "definition"
#: ``rule(builder, ctx, e) -> Optional[Synth]``: EqualInputs, tried before any construct's rule
#: (``monadic_rules.equal_inputs``)
EQUAL_INPUTS = "EqualInputs"
#: ``rule(builder, ctx, e, name, args, param=None) -> Synth``: a call of a function with a val,
#: or of a parameter of function type (``core_rules.apply_val``)
APP_VAL = "App-Val"
#: ``rule(builder, ctx, body, monadic, ...) -> Derivation``: the unary Safety premise of a
#: definition (``safety.check_safety``)
SAFETY = "Safety"
#: ``rule(builder, ctx, body, rt) -> Derivation``: a definition's body by the pointwise rule,
#: without and with the output value named (``couplings.Pointwise``, ``PointwiseValue``)
POINTWISE = "Pointwise"
POINTWISE_VALUE = "Pointwise-Value"
#: ``rule(builder, ctx, val_env, p, dom, name) -> Ctx``: a parameter of function type bound
#: (``higher_order.bind_function_parameter``)
FUNCTION_PARAMETER = "Fun-Param"
#: ``rule(builder, ctx, arg, want, want_env, i, name) -> Derivation``: S-Fun, a function passed
#: where a val expects one (``higher_order.function_argument``)
S_FUN = "S-Fun"
#: ``rule(builder) -> List[Derivation]``: the S-Fun root premises of the functions passed in
#: pure code whose call facts the obligations assume (``higher_order.related_nodes``)
S_FUN_ROOTS = "S-Fun-roots"
#: ``rule(builder, ctx, terms, calls) -> List[Term]``: the joint facts of the calls of additive
#: recursive functions on adjacent lists, in an obligation (``joint.letrec_joint``)
LETREC_JOINT = "LetRec-Joint"

_JUDGEMENTS: Dict[str, Callable] = {}


def judgement_rule(name: str):
    """Register the decorated function as the rule of the judgement ``name`` (one of the
    names above): one rule per judgement."""
    def register(fn: Callable) -> Callable:
        if name in _JUDGEMENTS:
            raise ValueError(f"two rules for the judgement {name}")
        _JUDGEMENTS[name] = fn
        return fn
    return register


def judgement(name: str, span: Optional[A.Span] = None) -> Callable:
    """The rule registered for the judgement ``name``; ``NoRule`` when none is (the rule
    modules are loaded by ``verifier.rules.catalogue``)."""
    rule = _JUDGEMENTS.get(name)
    if rule is None:
        raise NoRule(f"no rule for the judgement {name} is registered "
                     "(verifier.rules.catalogue loads the rules)", span)
    return rule
