"""The relational context, rebuilt by the kernel from the source: what every name is bound to.

The kernel reads the program's resolved core (``verifier.language.resolve``: every binder has
a name of its own, no binder has a built-in's name) and walks each verified derivation with an
environment from the names in scope to what is known of them in the two runs:

* ``Terms``: a first-order value, by its terms in run 1 and run 2 (a tuple's components in
  order). Parameters get the root's terms; ``mlet`` binders the output of the computation
  bound (rebuilt by the kernel); ``let``, ``match`` and the parameters of unfolded code the
  terms their node records (the translation of the program, which the kernel trusts);
* ``Code``: a closure, a stored computation or an alias — an expression of the source with the
  environment it was bound in. It is the same in both runs only when everything it captures
  is, transitively;
* ``Equal``: a value the rules coupled as equal in both runs that is not first-order;
* ``Typed``: a monadic parameter, known by its type ``M[F, delta] {x :: T | =}``: the same
  computation in both runs only when the index says the distributions are equal.

With it the kernel refuses, on its own (docs/certificates.md, "The binding discipline"):

* a node that treats a value as equal in both runs without proof — ``EqualInputs`` (every
  variable the expression captures, through closures and stored computations, is equal:
  its equalities are conjuncts of the node's obligation), ``Var`` (a computation known
  equal, or a typed parameter that costs its index), a return whose value is not first-order,
  and the computation arguments of ``App-Val``;
* a node whose rule is not the one of what the name denotes: a mechanism node on anything but
  the built-in (a program's own ``lapMech`` is renamed), an ``App-Val`` on another function
  than the one the head denotes (an alias is not the val of its spelling), an ``Unfold`` of
  code the head does not denote or of a body other than that code's, an ``ObserveFold`` or
  ``Observe`` whose likelihood is not the built-in family's;
* a recursive call whose termination is not shown (every call site, used or not), and a
  use of a function with a val that is not a verified claim (``referenced_vals``).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from obligations import terms as T
from obligations import vocabulary as V
from verifier.language import ast as A
from verifier.language.builtins import BUILTINS, CONJUGATE
from verifier.language.free_vars import free_vars
from verifier.language.resolve import recursive_call_sites

SpanKey = Tuple[int, int, int, int]


class Terms:
    __slots__ = ("pairs",)

    def __init__(self, pairs: List[Tuple[T.Term, T.Term]]):
        self.pairs = pairs


class Code:
    __slots__ = ("expr", "env")

    def __init__(self, expr: A.Expr, env: Dict[str, object]):
        self.expr, self.env = expr, env


class Equal:
    __slots__ = ()


class Typed:
    __slots__ = ("equal", "cost")

    def __init__(self, equal: bool, cost: Tuple):
        self.equal, self.cost = equal, cost


EQUAL = Equal()
#: a mechanism's rule -> the built-in it applies (the catalogue of built-ins)
MECHANISMS = {b.rule: b.name for b in BUILTINS.values() if b.rule}


def span_key(span) -> Optional[SpanKey]:
    if span is None:
        return None
    if isinstance(span, dict):
        return span["line"], span["col"], span["end_line"], span["end_col"]
    return span.line, span.col, span.end_line, span.end_col


def index_spans(program: A.Program) -> Dict[SpanKey, List[A.Expr]]:
    """Every expression of the program's definitions by its span, outermost first."""
    at: Dict[SpanKey, List[A.Expr]] = {}
    stack: List[A.Node] = [d.body for d in reversed(program.lets())]
    while stack:
        node = stack.pop()
        if isinstance(node, A.Expr):
            at.setdefault(span_key(node.span), []).append(node)
        stack += reversed(list(A.children(node)))
    return at


class Context:
    """The binding checks of one verified claim (see the module docstring). ``kernel`` is the
    ``checker.kernel._Kernel`` checking it; ``Invalid`` its exception."""

    def __init__(self, kernel, invalid, decl: A.LetDecl, val: A.ValDecl, root):
        self.k, self.Invalid = kernel, invalid
        self.program, self.decl, self.val, self.root = kernel.program, decl, val, root
        self.top = {d.name: d for d in self.program.lets()}
        self.vals = {v.name: v for v in self.program.vals()}
        self.at = kernel.spans

    # ---- entry ----------------------------------------------------------------------------

    def check(self) -> None:
        premises = [self.k.nodes[p] for p in self.root["premises"]]
        if [p["rule"] for p in premises] == ["ExactFinite"]:
            return  # computed exactly by the kernel's own evaluator
        env, body = self.parameters()
        if self.decl.recursive:
            self.terminates(premises[0])
        self.calls_in_domain(premises[0])
        body_node = premises[1]
        if span_key(body_node["span"]) != span_key(body.span):
            raise self.Invalid(f"node {body_node['id']}: the derivation is not of "
                               f"{self.decl.name}'s body")
        self.walk(body_node, env)
        for fold in premises[2:]:
            self.conjugate_likelihood(fold)

    def parameters(self) -> Tuple[Dict[str, object], A.Expr]:
        """The environment of the body: each parameter with the root's terms (or, for a
        computation, its type), as ``verifier.rules.core_rules.bind_parameters`` binds them."""
        params, body = list(self.decl.params), self.decl.body
        recorded = self.root["judgement"]["parameters"]
        doms, rt = [], self.val.rtype
        while isinstance(rt, A.RArrow):
            doms.append(rt.dom)
            rt = rt.cod
        env: Dict[str, object] = {}
        bindings: Dict[str, Tuple] = {}
        from checker import source as S
        for dom, p in zip(doms, recorded):
            if not params:
                if not isinstance(body, A.Fun):
                    raise self.Invalid(f"node {self.root['id']}: {self.decl.name} takes fewer "
                                       "parameters than its val")
                params, body = list(body.params), body.body
            pattern = params.pop(0)
            var, base, _ = S.refined_var(dom)
            if isinstance(base, A.RMonad):
                cost = S.instantiated_cost(self.program, base, bindings)
                value: object = Typed(cost[0] == "ZERO", cost)
                bindings[var] = (None, None)
            else:
                left, right = self.k.pair([p["left"], p["right"]], self.root)
                value = Terms([(left, right)])
                if var is not None:
                    bindings[var] = (left, right)
            if isinstance(pattern, A.PVar):
                env[pattern.name] = value
            elif not isinstance(pattern, (A.PWild, A.PUnit)):
                raise self.Invalid(f"node {self.root['id']}: a tuple parameter")
        return env, body

    # ---- the walk ---------------------------------------------------------------------------

    def walk(self, n, env: Dict[str, object]) -> None:
        rule, j = n["rule"], n["judgement"]
        prem = [self.k.nodes[p] for p in n["premises"]]
        method = getattr(self, "_" + rule.replace("-", "_"), None)
        if method is not None:
            method(n, j, prem, env)
        else:
            for p in prem:
                self.walk(p, env)

    def _Let(self, n, j, prem, env) -> None:
        e = self.expr_at(n, (A.Let,))
        inner = self.bind(n, e.pattern, j.get("bound"), dict(env), lambda: Code(e.value, env))
        self.walk(prem[0], inner)

    def _BindM(self, n, j, prem, env) -> None:
        e = self.expr_at(n, (A.MLet,))
        self.walk(prem[0], env)
        output = self.k.output(prem[0])
        available = set(output or ())
        for entry in j.get("bound") or ():
            if entry["value"] is None and output is not None:
                raise self.Invalid(f"node {n['id']}: {entry['name']} is bound to an output the "
                                   "kernel knows")
            if entry["value"] is not None and not {tuple(self.k.pair(v, n))
                                                   for v in entry["value"]} <= available:
                raise self.Invalid(f"node {n['id']}: {entry['name']} is not bound to the output "
                                   "of the computation")
        inner = self.bind(n, e.pattern, j.get("bound"), dict(env), lambda: EQUAL)
        self.walk(prem[1], inner)

    def _Match(self, n, j, prem, env) -> None:
        e = self.expr_at(n, (A.Match,))
        bound = (j.get("branch") or {}).get("bound")
        if bound is None:
            raise self.Invalid(f"node {n['id']}: the match records no binders of its :: case")
        names = {entry["name"] for entry in bound}
        if names != {x for x in (e.head, e.tail) if x != "_"}:
            raise self.Invalid(f"node {n['id']}: the :: case binds {sorted(names)}")
        cons = dict(env)
        for entry in bound:
            cons[entry["name"]] = Terms([tuple(self.k.pair(v, n)) for v in entry["value"]]) \
                if entry["value"] is not None else EQUAL
        self.walk(prem[0], env)
        for p in prem[1:]:
            self.walk(p, cons)

    _Match_Split = _Match

    def _Unfold(self, n, j, prem, env) -> None:
        nodes = self.at.get(span_key(n["span"]), [])
        app = next((x for x in nodes if isinstance(x, (A.App, A.If))), None)
        if app is None:
            var = next((x for x in nodes if isinstance(x, A.Var)), None)
            code = env.get(var.name) if var is not None else None
            if not isinstance(code, Code):
                raise self.Invalid(f"node {n['id']}: no stored computation to run here")
            self.same_span(prem[0], code.expr, n)
            return self.walk(prem[0], dict(code.env))
        head, args = _spine(_first_leaf(app))
        params, body, inner = self.code_of(n, head, env)
        if len(params) != len(args):
            raise self.Invalid(f"node {n['id']}: the code unfolded takes {len(params)} "
                               f"arguments, not {len(args)}")
        bound = list(j.get("bound") or ())
        for p, arg in zip(params, args):
            mine = [b for b in bound if b["name"] in A.pattern_names(p)]
            inner = self.bind(n, p, mine, inner, lambda a=arg: Code(a, env))
        self.same_span(prem[0], body, n)
        self.walk(prem[0], inner)

    def _EqualInputs(self, n, j, prem, env) -> None:
        e = self.expr_at(n, (A.Expr,))
        self.entails(n, self.required(free_vars(e), env, n))

    def _UnitM(self, n, j, prem, env) -> None:
        if j.get("output", []) is None:  # a value that is not first-order: equal by proof
            e = self.expr_at(n, (A.Return,))
            if self.required(free_vars(e.value), env, n):
                raise self.Invalid(f"node {n['id']}: the returned code is not known to be the "
                                   "same in both runs")

    def _Var(self, n, j, prem, env) -> None:
        e = self.expr_at(n, (A.Var,))
        value = env.get(e.name)
        cost = ("ZERO", T.real(0), T.real(0))
        if isinstance(value, Typed) and not value.equal:
            cost = value.cost
        elif isinstance(value, Terms):
            raise self.Invalid(f"node {n['id']}: {e.name} is not a computation")
        elif value is not None and not isinstance(value, (Typed, Equal)):
            if self.required({e.name}, env, n):
                raise self.Invalid(f"node {n['id']}: {e.name} is not known to be the same "
                                   "computation in both runs")
        elif value is None and e.name not in self.top:
            raise self.Invalid(f"node {n['id']}: {e.name} is not bound on this path")
        if n["obligations"]:
            raise self.Invalid(f"node {n['id']}: Var has no obligation")
        self.k.var_costs[n["id"]] = cost

    def _App_Val(self, n, j, prem, env) -> None:
        app = self.app_at(n)
        head, args = _spine(app)
        callee = self.denoted(head, env)
        if callee != j.get("uses"):
            raise self.Invalid(f"node {n['id']}: the head denotes {callee}, not {j.get('uses')}")
        rt, doms = self.vals[callee].rtype, []
        while isinstance(rt, A.RArrow):
            doms.append(rt.dom)
            rt = rt.cod
        obs = self.k.obs(n)
        start = 1 if callee == self.decl.name else 0  # the shorter-list obligation first
        for dom, arg, entry in zip(doms, args, j.get("arguments") or ()):
            chunk, start = obs[start:start + entry["obligations"]], start + entry["obligations"]
            base = dom
            while isinstance(base, A.RRefine):
                base = base.base
            if isinstance(base, A.RMonad) and not _equality_type(self.program, base):
                value = env.get(arg.name) if isinstance(arg, A.Var) else None
                if not isinstance(value, Typed):
                    raise self.Invalid(f"node {n['id']}: a computation passed where one within a "
                                       "bound is expected must be a parameter known by its type")
                self.k.passed_costs[(n["id"], entry["var"])] = value.cost
            elif isinstance(base, A.RMonad):
                have = {c for ob in chunk for c in _conjuncts(ob.goal)}
                missing = [g for g in self.required(free_vars(arg), env, n) if g not in have]
                if missing:
                    raise self.Invalid(f"node {n['id']}: no obligation that the computation "
                                       f"argument is the same in both runs: {T.pretty(missing[0])}")

    def mechanism(self, n, j, prem, env) -> None:
        name = MECHANISMS[n["rule"]]
        nodes = self.at.get(span_key(n["span"]), [])
        app = next((x for x in nodes if isinstance(x, (A.App, A.If))), None)
        heads = [_spine(leaf)[0] for leaf in _leaves(app)] if app is not None else []
        if not heads or any(h != A.Var(name) or h.name in env for h in heads):
            raise self.Invalid(f"node {n['id']}: {n['rule']} applies to the built-in {name} only")

    _LapMech = _GaussMech = _ExpMech = _HellingerMech = _HellingerMechPure = mechanism

    # ---- what names denote --------------------------------------------------------------------

    def denoted(self, head: A.Expr, env) -> Optional[str]:
        """The top-level function a head denotes, through aliases (``let g = f``)."""
        seen = 0
        while isinstance(head, A.Var) and seen < 1000:
            value = env.get(head.name)
            if value is None:
                return head.name if head.name in self.top else None
            if not (isinstance(value, Code) and isinstance(value.expr, A.Var)):
                return None
            head, env, seen = value.expr, value.env, seen + 1
        return None

    def code_of(self, n, head: A.Expr, env) -> Tuple[List[A.Pattern], A.Expr, Dict]:
        """The parameters, body and environment of the code a head denotes (a helper without
        a val, a lambda, or a name bound to one), as the builder unfolds it."""
        for _ in range(1000):
            if isinstance(head, A.Fun):
                return list(head.params), head.body, dict(env)
            if not isinstance(head, A.Var):
                break
            value = env.get(head.name)
            if isinstance(value, Code):
                head, env = value.expr, value.env
                continue
            decl = self.top.get(head.name) if value is None else None
            if decl is None or decl.name in self.vals:
                break
            if decl.params:
                return list(decl.params), decl.body, {}
            head, env = decl.body, {}
        raise self.Invalid(f"node {n['id']}: the head does not denote code to unfold")

    def required(self, names, env, n, depth: int = 0) -> List[T.Term]:
        """The equalities that make the variables ``names`` equal in both runs."""
        if depth > 200:
            raise self.Invalid(f"node {n['id']}: the code captured is nested too deeply")
        goals: List[T.Term] = []
        for x in sorted(names):
            value = env.get(x)
            if value is None:
                if x in self.top or x in BUILTINS:
                    continue  # closed code and built-ins are the same in both runs
                raise self.Invalid(f"node {n['id']}: {x} is not bound on this path")
            if isinstance(value, Terms):
                goals += [T.eq(a, b) for a, b in value.pairs if a != b]
            elif isinstance(value, Code):
                goals += self.required(free_vars(value.expr), value.env, n, depth + 1)
            elif isinstance(value, Typed) and not value.equal:
                raise self.Invalid(f"node {n['id']}: {x} is a computation known only within its "
                                   "type's bound, not the same in both runs")
        return goals

    def entails(self, n, goals: List[T.Term]) -> None:
        have = {c for ob in self.k.obs(n) for c in _conjuncts(ob.goal)}
        missing = [g for g in goals if g not in have]
        if missing:
            raise self.Invalid(f"node {n['id']}: {n['rule']} uses a value as equal in both runs "
                               f"without the obligation {T.pretty(missing[0])}")

    # ---- helpers ----------------------------------------------------------------------------------

    def bind(self, n, p: A.Pattern, bound, env, otherwise) -> Dict:
        """``env`` with the names of pattern ``p`` bound to their recorded terms, or, for a
        value that is not first-order, to ``otherwise()``."""
        names = A.pattern_names(p)
        recorded = {entry["name"]: entry["value"] for entry in bound or ()}
        if set(recorded) != set(names):
            raise self.Invalid(f"node {n['id']}: the names bound are {sorted(recorded)}, not "
                               f"{sorted(names)}")
        for name in names:
            value = recorded[name]
            if value is not None:
                env[name] = Terms([tuple(self.k.pair(v, n)) for v in value])
            else:
                env[name] = otherwise()
        return env

    def expr_at(self, n, types) -> A.Expr:
        for x in self.at.get(span_key(n["span"]), []):
            if isinstance(x, types):
                return x
        raise self.Invalid(f"node {n['id']}: {n['rule']} is not at a "
                           f"{'/'.join(t.__name__ for t in types)} of the source")

    def app_at(self, n) -> A.App:
        nodes = self.at.get(span_key(n["span"]), [])
        app = next((x for x in nodes if isinstance(x, (A.App, A.If))), None)
        leaf = _first_leaf(app) if app is not None else None
        if not isinstance(leaf, A.App):
            raise self.Invalid(f"node {n['id']}: {n['rule']} is not at an application")
        return leaf

    def same_span(self, premise, e: A.Expr, n) -> None:
        if span_key(premise["span"]) != span_key(e.span):
            raise self.Invalid(f"node {n['id']}: its premise is not the derivation of the code "
                               "unfolded")

    def conjugate_likelihood(self, n) -> None:
        """An observe-fold or observe: every likelihood its definition observes draws from the
        built-in of the family the node names (``normal`` redefined is not ``normal``)."""
        family = n["judgement"].get("family")
        if n["rule"] == "ObserveFold":
            decl = self.top.get(n["judgement"].get("function"))
            scope = decl.body if decl is not None else None
        else:
            scope = self.expr_at(n, (A.Expr,))
        observes = [x for x in _walk(scope) if isinstance(x, A.Observe)] if scope else []
        if family not in CONJUGATE or not observes:  # the catalogue's likelihood families
            raise self.Invalid(f"node {n['id']}: no observe of a {family} likelihood here")
        for obs in observes:
            draws = [x.value for x in _walk(obs.likelihood) if isinstance(x, A.Ran)]
            heads = [_spine(d)[0] for d in draws if isinstance(d, A.App)]
            if not heads or any(h != A.Var(family) for h in heads):
                raise self.Invalid(f"node {n['id']}: the likelihood does not draw from the "
                                   f"built-in {family}")

    def terminates(self, safety) -> None:
        """Every recursive call of the definition has, in each run, the Safety obligation that
        its list is shorter than that run's at the induction position."""
        arity = sum(1 for _ in _arrows(self.val.rtype))
        calls, stray = recursive_call_sites(self.decl, arity)
        if stray:
            raise self.Invalid(f"claim {self.decl.name}: its name is used other than in a "
                               "recursive call, whose termination no obligation shows")
        if not calls:
            return
        if self.k.induction is None:
            raise self.Invalid(f"claim {self.decl.name}: recursive calls without an induction "
                               "measure")
        lists = self.k.induction[1:]
        by_span: Dict[SpanKey, List[T.Term]] = {}
        for ob in self.k.obs(safety):
            by_span.setdefault(span_key(ob.provenance.span), []).append(ob.goal)
        for call in calls:
            goals = by_span.get(span_key(call.span), [])
            for x in lists:
                if not any(_shorter_than(g, x) for g in goals):
                    raise self.Invalid(f"claim {self.decl.name}: the recursive call at "
                                       f"{call.span.line}:{call.span.col} has no obligation that "
                                       "it terminates (a shorter list)")


    def calls_in_domain(self, safety) -> None:
        """Every call of a pure function through its val, written in the definition's body
        outside a ``fun`` (so evaluated whenever its path is) and not the observe-fold of an
        ``infer``, has a Safety obligation at its span —
        that its arguments are in the val's domain, where the callee is shown to terminate
        without error — unless that domain says nothing (simple types without ranges or
        refinements). The goal is the translation of the arguments, trusted like Safety's
        other range conditions; a call without one is a certificate claiming what no
        obligation shows (a call out of its domain may loop or fail in one run only)."""
        from checker import source as S
        arity = {}
        for val in self.k.program.vals():
            doms = list(_arrows(val.rtype))
            if isinstance(S.refined_var(_result(val.rtype))[1], A.RMonad):
                continue  # a computation: a call may be stored and never run (App-Val checks
                #           the refinements where one runs relationally)
            says = [S.refined_var(d) for d in doms]
            if any(assertions or (isinstance(base, A.RSimple) and S.has_ranges(base.type))
                   for _, base, assertions in says if not isinstance(base, A.RMonad)):
                arity[val.name] = len(doms)
        spans = {span_key(ob.provenance.span) for ob in self.k.obs(safety)}
        stack: List[A.Node] = [self.decl.body]
        while stack:
            x = stack.pop()
            if isinstance(x, A.Fun):
                continue  # a function's body runs where it is applied
            if isinstance(x, A.Infer) and isinstance(x.value, A.App):
                # infer of an observe-fold: its closed form is the ObserveFold rule's, whatever
                # the fold's val says; its arguments are evaluated like any others
                stack += _spine(x.value)[1]
                continue
            if isinstance(x, A.App):
                head, args = _spine(x)
                if isinstance(head, A.Var) and arity.get(head.name) == len(args) \
                        and span_key(x.span) not in spans:
                    raise self.Invalid(f"claim {self.decl.name}: the call of {head.name} at "
                                       f"{x.span.line}:{x.span.col} has no obligation that its "
                                       "arguments are in the domain of its val")
            stack += list(A.children(x))


def _equality_type(program: A.Program, rt: A.RMonad) -> bool:
    """Whether ``M[F, delta] {x :: T | =}`` says the two distributions are equal (its index,
    instantiated, is zero): its refinements name no parameter of the callee's val."""
    from checker import source as S
    try:
        return S.instantiated_cost(program, rt, {})[0] == "ZERO"
    except S.SourceError:
        return False


def _shorter_than(goal: T.Term, x: T.Term) -> bool:
    """``length a < length x``, possibly under a guard ``g ==> ...``."""
    if isinstance(goal, T.Op) and goal.op == T.OpKind.IMPLIES:
        goal = goal.args[1]
    return (isinstance(goal, T.Op) and goal.op == T.OpKind.LT
            and goal.args[1] == V.length(x) and isinstance(goal.args[0], T.Apply)
            and goal.args[0].func.name == "length")


def _conjuncts(t: T.Term) -> List[T.Term]:
    if isinstance(t, T.Op) and t.op == T.OpKind.AND:
        return [c for a in t.args for c in _conjuncts(a)]
    return [t]


def _spine(e: A.Expr) -> Tuple[A.Expr, List[A.Expr]]:
    args: List[A.Expr] = []
    while isinstance(e, A.App):
        args.append(e.arg)
        e = e.fn
    return e, args[::-1]


def _leaves(e: A.Expr) -> List[A.Expr]:
    """The branches of nested ifs (an if lifted into its arguments: If-Lift)."""
    if isinstance(e, A.If):
        return _leaves(e.then) + _leaves(e.else_)
    return [e]


def _first_leaf(e: A.Expr) -> A.Expr:
    return _leaves(e)[0]


def _result(rt: A.RType) -> A.RType:
    while isinstance(rt, A.RArrow):
        rt = rt.cod
    return rt


def _arrows(rt: A.RType):
    while isinstance(rt, A.RArrow):
        yield rt.dom
        rt = rt.cod


def _walk(node: A.Node):
    stack = [node]
    while stack:
        x = stack.pop()
        yield x
        stack += list(A.children(x))
