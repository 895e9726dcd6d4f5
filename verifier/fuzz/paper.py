"""Productions of the paper's constructs of issue #26 for the fuzz generator (``generate._Gen``
inherits them): parameters of function type, ``infer`` without a closed form and of a
``val``'d model, ``Delta[F]`` assertions, parallel composition.

* ``r_higher_order``: a new ``val``'d helper with a parameter ``m`` of type ``({d :: bool list
  | adj (d<1>, d<2>)} -> M[DP(eps)] {r :: bool | =})`` run ``k`` times in its body (directly,
  through a stored call ``let c = m db``, or by passing ``m`` itself to another such helper),
  called with a ``val``'d mechanism wrapper (partially applied, or whole), a ``fun`` capturing
  public data or the private list, or a helper without a ``val``; mechanisms cheaper, as dear
  or dearer than the parameter's type allows, or leaking. The helper's claim is unjudged by the
  oracle (a function parameter is not enumerable): its constant is calibrated from the number
  of runs the generator wrote (``ClaimPlan.known``); the callers' claims are judged.
* ``r_posterior``: ``infer`` of a model whose likelihood is not conjugate to its prior — a
  hidden bit read through a noisy channel (a finite prior: exact), a beta prior observed through
  ``bernoulli (r * r)`` (its own observes, or a ``val``'d observe-fold), with data public or
  private —, released by ``ran`` or returned as a distribution; and ``infer`` of a call of a
  ``val`` ``M[DP(c * eps)] {b :: bool | =}``, directly or through a ``val`` whose result is
  ``{d :: D[bool] | Delta[DP(c' * eps)] (d<1>, d<2>) <= 0.0}`` (true or claiming less).
* ``r_parallel``: a data-independent partition of the private list by a ``val``'d helper whose
  result states the parts' joint distance (parallel composition), or one by the data (whose val
  is false), each part released by the exponential mechanism.
"""
from __future__ import annotations

from fractions import Fraction
from typing import List, Optional, Tuple

from verifier.language import ast

BOOL, REAL = ("bool",), ("real",)


def _list(t):
    return ("list", t)


def _m(t):
    return ("M", t)


def _d(t):
    return ("D", t)


LIST_BOOL = _list(BOOL)


class PaperRules:
    """Mixin of ``generate._Gen`` (uses its ``rng``, ``fresh``, ``chance``, ``before``,
    ``tops``, ``claims``, ``tags`` and the syntax helpers of ``generate``)."""

    # ---- shared pieces ---------------------------------------------------------------------

    def _eps_index(self, ctx) -> Tuple[Optional[ast.Expr], bool]:
        """The public ``eps`` in scope (``var eps``, True) or a literal index (False)."""
        from verifier.fuzz.generate import real, var
        eps = [b for b in ctx.visible().values() if b.name == "eps" and b.type == REAL and not b.private]
        if eps:
            return var("eps"), True
        return real(self.rng.choice((Fraction(1, 2), Fraction(1)))), False

    def _counting_score(self) -> ast.Expr:
        """``fun (x, r) -> if r then count x else length x - count x`` (sensitivity 1)."""
        from verifier.fuzz.generate import app, binop, pvar, var
        x, r = self.fresh("x"), self.fresh("r")
        return ast.Fun((ast.PTuple((pvar(x), pvar(r, BOOL))),),
                       ast.If(var(r), app(var("count"), var(x)),
                              binop("-", app(var("length"), var(x)), app(var("count"), var(x)))))

    def _mechanism(self, d: ast.Expr, index: ast.Expr, private: Optional[str],
                   public_bool: Optional[str], out: tuple) -> Tuple[ast.Expr, str, Optional[Fraction]]:
        """A computation over the bool list ``d`` at index ``index`` with a result of type
        ``out`` (``bool``: the exponential mechanism; ``real``: the Laplace mechanism on a count,
        whose loss is exactly its index) — at the index, half or twice it, free (a coin, a
        constant), a leak; capturing the private list ``private`` or a public bool when given.
        Returns the expression, its kind (a tag) and its nominal cost in units of ``index``
        (None: a leak)."""
        from verifier.fuzz.generate import app, binop, call, intlit, pvar, real, var
        rng = self.rng
        kind = rng.choices(("same", "half", "double", "free", "leak", "captured", "public", "post"),
                           (5, 1.5, 1.5, 1, 1, 2 if private else 0, 1.5 if public_bool else 0,
                            1 if out == BOOL else 0))[0]
        scale = {"half": binop("/", index, real(Fraction(2))),
                 "double": binop("*", real(Fraction(2)), index)}.get(kind, index)

        def mech(data: ast.Expr, score: Optional[ast.Expr] = None) -> ast.Expr:
            if out == BOOL:
                return call("expMech", scale, score or self._counting_score(), data)
            return call("lapMech", scale, app(var("count"), data))
        tags = {"same": "argument at the parameter's cost", "half": "argument cheaper",
                "double": "argument dearer", "free": "argument cheaper", "leak": "argument leaks",
                "captured": "argument captures the private list",
                "public": "argument captures public data", "post": "argument at the parameter's cost"}
        costs = {"same": Fraction(1), "half": Fraction(1, 2), "double": Fraction(2), "free": Fraction(0),
                 "public": Fraction(1), "post": Fraction(1)}
        if kind in ("same", "half", "double"):
            return mech(d), tags[kind], costs[kind]
        if kind == "free":
            if out == BOOL:
                return ast.Ran(app(var("bernoulli"), real(rng.choice((Fraction(1, 4), Fraction(3, 4)))))), \
                    tags[kind], costs[kind]
            return ast.Return(real(rng.choice((Fraction(0), Fraction(1))))), tags[kind], costs[kind]
        if kind == "leak":
            if out == BOOL:
                return ast.Return(binop(">", app(var("count"), d), intlit(rng.choice((0, 1))))), tags[kind], None
            return ast.Return(app(var("count"), d)), tags[kind], None
        if kind == "captured":
            if self.chance(0.5):   # the private list in place of the argument: within the index
                return mech(var(private)), tags[kind], Fraction(1)
            if out == REAL:        # both counts: twice the index
                return call("lapMech", scale, binop("+", app(var("count"), d),
                                                    app(var("count"), var(private)))), tags[kind], Fraction(2)
            x, r = self.fresh("x"), self.fresh("r")
            both = ast.Fun((ast.PTuple((pvar(x), pvar(r, BOOL))),),
                           ast.If(var(r), binop("+", app(var("count"), var(x)), app(var("count"), var(private))),
                                  intlit(0)))
            return mech(d, both), tags[kind], Fraction(2)
        if kind == "public":
            other = ast.Return(ast.BoolLit(rng.random() < 0.5) if out == BOOL else real(Fraction(0)))
            return ast.If(var(public_bool), mech(d), other), tags[kind], costs[kind]
        z = self.fresh("z")
        return ast.MLet(pvar(z), call("lapMech", scale, app(var("count"), d)),
                        ast.Return(binop(">", var(z), real(Fraction(1))))), tags[kind], costs[kind]

    def _known_claim(self, name: str, params, result_body: ast.RType, index_of, known: Fraction,
                     delta: bool = False):
        """A val whose constant the oracle cannot calibrate (a function parameter): ``index_of(c)``
        the index at constant ``c``; ``known`` the constant the generator knows is needed."""
        from verifier.fuzz.generate import ClaimPlan
        mode = self.rng.choices(("tight", "loose", "under"), (4, 2, 3))[0]
        self.tags.add(f"claim {mode}")
        self.val_names.append(name)

        def build(c: Fraction) -> ast.RType:
            cod: ast.RType = ast.RMonad(ast.Divergence("DP", index_of(c)), None, result_body)
            for dom in reversed(params):
                cod = ast.RArrow(dom, cod)
            return cod
        self.claims.append(ClaimPlan(name, "index", mode, build, known=known))
        return ast.ValDecl(name, build(Fraction(1)))

    @staticmethod
    def _nominal(plan, cost: Optional[Fraction], literal: Optional[Fraction]) -> None:
        """Give ``plan`` (a ``M[DP(c * eps)]`` or ``M[DP(c)]`` claim of a mechanism of nominal
        ``cost`` times its index: ``eps``, or the ``literal``) the constant the rules need."""
        rt = plan.build(Fraction(1))
        while isinstance(rt, ast.RArrow):
            rt = rt.cod
        if cost is None or not isinstance(rt, ast.RMonad) or rt.div.kind != "DP" or rt.delta is not None:
            return
        if isinstance(rt.div.eps, ast.Var) and rt.div.eps.name == "eps":
            plan.known = cost
        elif isinstance(rt.div.eps, ast.RealLit) and literal is not None:
            plan.known = cost * literal

    @staticmethod
    def _times(c: Fraction, base: ast.Expr, with_eps: bool) -> ast.Expr:
        from verifier.fuzz.generate import binop, real
        if not with_eps:
            return real(c * base.value)
        return base if c == 1 else binop("*", real(c), base)

    @staticmethod
    def _adj_list(name: str) -> ast.RType:
        from verifier.fuzz.generate import runs, var
        return ast.RRefine(name, ast.RSimple(ast.TList(ast.TBase("bool"))),
                           ast.App(var("adj"), ast.TupleLit(runs(name))))

    @staticmethod
    def _eps_param() -> ast.RType:
        return ast.RRefine("eps", ast.RSimple(ast.TBase("real+")), ast.SameRuns())

    # ---- higher order ------------------------------------------------------------------------

    def r_higher_order(self, t, ctx, depth):
        """``ho eps ARG db``: a val'd helper with a function parameter, and its argument. The
        parameter's result is ``bool`` (exponential mechanism) for a goal ``M[bool]`` or
        ``M[bool list]``, ``real`` (Laplace mechanism, tight: a miscount of its runs shows) for
        ``M[real]`` or ``M[real list]``."""
        from verifier.fuzz.generate import app, var
        if t not in (_m(BOOL), _m(LIST_BOOL), _m(REAL), _m(_list(REAL))) or self.helper_depth >= 2:
            return None
        lists = [b for b in ctx.visible().values() if b.type == LIST_BOOL]
        if not lists:
            return None
        out = BOOL if t in (_m(BOOL), _m(LIST_BOOL)) else REAL
        source = self.rng.choice([b for b in lists if b.private] or lists)
        index, with_eps = self._eps_index(ctx)
        inner = None
        if self.chance(0.4 if out == REAL else 0.2):   # a helper passing its parameter on
            inner = self.higher_order_val(_m(out), out, with_eps, index, None)
        name, uses = self.higher_order_val(t, out, with_eps, index, inner)
        publics = [b.name for b in ctx.usable() if b.type == BOOL and not b.private]
        arg = self.function_argument(index, with_eps, source.name if source.private else None,
                                     publics[0] if publics else None, out)
        self.tags.add("higher-order val")
        args = ([index] if with_eps else []) + [arg, var(source.name)]
        return app(var(name), *args)

    def higher_order_val(self, t, out: tuple, with_eps: bool, index: ast.Expr, inner):
        """A new val'd helper ``name [eps] m db`` of result ``t`` running ``m`` (of result
        ``out``) k times; returns ``(name, runs)``."""
        from verifier.fuzz.generate import TopDef, app, binop, pvar, syntax, var, FUN
        rng = self.rng
        name, m, db = self.fresh("ho"), self.fresh("m"), self.fresh("db")
        single = t == _m(out)
        # runs of the exponential mechanism multiply into sums of radicals that the refuter's
        # exact comparisons take seconds over: fewer of them than of Laplace releases
        k = rng.choices((0, 1, 2, 3), (1, 3, 3, 1) if out == REAL and not single else
                        (1, 6, 1, 0) if out == REAL else (1, 4, 1.5, 0.2))[0]
        eps_arg = [var("eps")] if with_eps else []
        runs_: List[Tuple[ast.Expr, int]] = []
        for _ in range(k):
            runs_.append((app(var(m), var(db)), 1))
        if inner is not None:
            iname, ik = inner
            runs_.append((app(var(iname), *eps_arg, var(m), var(db)), ik))
            self.tags.add("function parameter passed on")
        rng.shuffle(runs_)
        names = [self.fresh("a") for _ in runs_]
        if not single:
            result: ast.Expr = ast.ListLit(tuple(var(a) for a in names))
        elif names and out == BOOL:
            result = var(names[0])
            for a in names[1:]:
                result = binop(rng.choice(("&&", "||", "=")), result, var(a))
        elif names:   # one release of the real runs (the others run, unused)
            result = var(rng.choice(names))
        else:
            result = ast.BoolLit(True) if out == BOOL else ast.RealLit(Fraction(0))
        body: ast.Expr = ast.Return(result)
        stored = None
        if runs_ and runs_[0][1] == 1 and runs_[0][0].fn == var(m) and self.chance(0.3):
            stored = self.fresh("c")   # a stored call, run where it is bound
            runs_[0] = (var(stored), 1)
            self.tags.add("function parameter call stored")
        for a, (e, _) in reversed(list(zip(names, runs_))):
            body = ast.MLet(pvar(a), e, body)
        if stored is not None:
            body = ast.Let(pvar(stored), app(var(m), var(db)), body)
        total = sum(c for _, c in runs_)
        fun_type = ast.RArrow(self._adj_list("d"),
                              ast.RMonad(ast.Divergence("DP", index), None,
                                         ast.RRefine("r", ast.RSimple(syntax(out)), ast.SameRuns())))
        params = ([self._eps_param()] if with_eps else []) + [fun_type, self._adj_list("l")]
        body_t = ast.RRefine("r", ast.RSimple(syntax(t[1])), ast.SameRuns())
        val = self._known_claim(name, params, body_t, lambda c: self._times(c, index, with_eps),
                                Fraction(total))
        patterns = ([pvar("eps")] if with_eps else []) + [pvar(m), pvar(db)]
        self.before += [val, ast.LetDecl(name, tuple(patterns), body)]
        fn = FUN(FUN(LIST_BOOL, _m(out)), FUN(LIST_BOOL, t))
        self.tops.append(TopDef(name, FUN(REAL, fn) if with_eps else fn, 3 if with_eps else 2, has_val=True))
        return name, total

    def function_argument(self, index: ast.Expr, with_eps: bool, private: Optional[str],
                          public_bool: Optional[str], out: tuple) -> ast.Expr:
        """What is passed for the function parameter: a val'd wrapper, a ``fun``, a helper
        without a val."""
        from verifier.fuzz.generate import TopDef, app, pvar, var, FUN
        rng = self.rng
        how = rng.choices(("wrapper", "fun", "helper"), (3, 4, 1))[0]
        d = self.fresh("d")
        if how == "fun":
            body, kind, _ = self._mechanism(var(d), index, private, public_bool, out)
            self.tags.add(kind)
            self.tags.add("fun passed for a function parameter")
            return ast.Fun((pvar(d, LIST_BOOL) if self.chance(0.5) else pvar(d),), body)
        body, kind, cost = self._mechanism(var(d), var("eps") if with_eps else index, None, None, out)
        self.tags.add(kind)
        name = self.fresh("w")
        patterns = ([pvar("eps")] if with_eps else []) + [pvar(d, LIST_BOOL)]
        fn_type = FUN(LIST_BOOL, _m(out))
        if how == "wrapper":
            from verifier.fuzz.generate import runs
            binders = ([("eps", ast.TBase("real+"), ast.SameRuns())] if with_eps else []) + \
                [(d, ast.TList(ast.TBase("bool")), ast.App(var("adj"), ast.TupleLit(runs(d))))]
            val = self.claim(name, binders, _m(out), with_eps, with_eps, None)
            self._nominal(self.claims[-1], cost, None if with_eps else index.value)
            self.before += [val, ast.LetDecl(name, tuple(patterns), body)]
            self.tags.add("val'd wrapper passed for a function parameter")
        else:
            self.before.append(ast.LetDecl(name, tuple(patterns), body))
            self.tags.add("helper without val passed for a function parameter")
        self.tops.append(TopDef(name, FUN(REAL, fn_type) if with_eps else fn_type,
                                2 if with_eps else 1, has_val=how == "wrapper"))
        return app(var(name), index) if with_eps else var(name)

    # ---- infer without a closed form, infer of a val'd model ---------------------------------

    def r_posterior(self, t, ctx, depth):
        """``ran (infer model)`` (a bool release) or ``return (infer model)`` (a distribution)."""
        rng = self.rng
        if t == _m(BOOL):
            choice = rng.choices(("bit", "model", "delta"), (3, 2, 4))[0]
            if choice == "bit":
                model = self.hidden_bit(ctx, depth)
            else:
                model = self.dp_model(ctx, through_delta=choice == "delta")
                if model is None:
                    return None
                if choice == "delta":
                    self.tags.add("infer of a val'd model")
                    return ast.Ran(model) if self.chance(0.7) else self._post_process(ast.Ran(model))
            if model is None:
                return None
            out = ast.Ran(ast.Infer(model))
            return self._post_process(out) if self.chance(0.3) else out
        if t == _m(_d(BOOL)):
            model = self.hidden_bit(ctx, depth)
            return ast.Return(ast.Infer(model))
        if t == _m(_d(REAL)):
            model = self.beta_square(ctx, depth)
            return None if model is None else ast.Return(ast.Infer(model))
        return None

    def _post_process(self, release: ast.Expr) -> ast.Expr:
        from verifier.fuzz.generate import pvar, var
        x = self.fresh("x")
        self.tags.add("post-processed posterior draw")
        return ast.MLet(pvar(x), release, ast.Return(ast.UnOp("not", var(x))))

    def _observed(self, ctx, depth) -> ast.Expr:
        """The observation: public (a literal, a public bool) or private (a count of the list)."""
        from verifier.fuzz.generate import app, binop, intlit, var
        rng = self.rng
        publics = [b.name for b in ctx.visible().values() if b.type == BOOL and not b.private]
        lists = [b.name for b in ctx.visible().values() if b.type == LIST_BOOL and b.private]
        r = rng.random()
        if lists and r < 0.4:
            self.tags.add("infer on private data")
            return binop(">", app(var("count"), var(rng.choice(lists))), intlit(rng.choice((0, 1))))
        if publics and r < 0.75:
            return var(rng.choice(publics))
        return ast.BoolLit(rng.random() < 0.5)

    def hidden_bit(self, ctx, depth) -> ast.Expr:
        """A bit under a finite prior, observed once or twice through a noisy reading
        (``bernoulli (if h then p else q)``, maybe a named helper): not conjugate."""
        from verifier.fuzz.generate import PROBABILITIES, app, binop, pvar, real, var
        rng = self.rng
        model: ast.Expr = ast.Ran(app(var("bernoulli"), real(rng.choice(PROBABILITIES))))
        reading = None
        if self.chance(0.4):
            reading, rh = self.fresh("reading"), self.fresh("h")
            self.before.append(ast.LetDecl(reading, (pvar(rh),), ast.If(
                var(rh), real(Fraction(9, 10)), real(rng.choice((Fraction(1, 5), Fraction(1, 2)))))))
        for _ in range(rng.choice((1, 1, 2))):
            h, z = self.fresh("h"), self.fresh("z")
            p = app(var(reading), var(h)) if reading else ast.If(
                var(h), real(rng.choice(PROBABILITIES)), real(rng.choice((Fraction(1, 10), Fraction(1, 2)))))
            lik = ast.Fun((pvar(h),), ast.MLet(pvar(z), ast.Ran(app(var("bernoulli"), p)),
                                               ast.Return(binop("=", var(z), self._observed(ctx, depth)))))
            model = ast.Observe(lik, model)
        self.tags.add("infer without closed form (finite prior)")
        return model

    def beta_square(self, ctx, depth) -> Optional[ast.Expr]:
        """A beta prior observed through ``bernoulli (r * r)``: inline, or a val'd fold over a
        list (public literal, or the private list)."""
        from verifier.fuzz.generate import TopDef, app, binop, call, pvar, real, var, FUN
        rng = self.rng
        prior = ast.Ran(call("beta", real(Fraction(2)), real(rng.choice((Fraction(1), Fraction(2))))))
        r, z = self.fresh("r"), self.fresh("z")
        self.tags.add("infer without closed form (beta prior)")
        if self.chance(0.5):
            lik = ast.Fun((pvar(r),), ast.MLet(pvar(z), ast.Ran(app(var("bernoulli"), binop("*", var(r), var(r)))),
                                               ast.Return(binop("=", var(z), self._observed(ctx, depth)))))
            return ast.Observe(lik, prior)
        name, l, d, ds, p = (self.fresh(x) for x in ("fit", "l", "d", "ds", "prior"))
        lik = ast.Fun((pvar(r),), ast.MLet(pvar(z), ast.Ran(app(var("bernoulli"), binop("*", var(r), var(r)))),
                                           ast.Return(binop("=", var(d), var(z)))))
        body = ast.Match(var(l), var(p), d, ds, ast.Observe(lik, app(var(name), var(ds), var(p))))
        unit = ast.RSimple(ast.TBase("[0,1]"))
        mon = ast.RMonad(ast.Divergence("SD"), None, ast.RRefine("x", unit, ast.SameRuns()))
        data = ast.RRefine("l", ast.RSimple(ast.TList(ast.TBase("bool"))), ast.SameRuns())
        self.before += [ast.ValDecl(name, ast.RArrow(data, ast.RArrow(mon, mon))),
                        ast.LetDecl(name, (pvar(l, LIST_BOOL), pvar(p)), body, recursive=True)]
        self.tops.append(TopDef(name, FUN(LIST_BOOL, FUN(_m(REAL), _m(REAL))), 2, has_val=True))
        lists = [b.name for b in ctx.visible().values() if b.type == LIST_BOOL]
        if lists and self.chance(0.5):
            data_arg: ast.Expr = var(rng.choice(lists))
            self.tags.add("infer on private data")
        else:
            data_arg = ast.ListLit(tuple(ast.BoolLit(rng.random() < 0.5) for _ in range(rng.choice((1, 2)))))
        self.tags.add("observe-fold without closed form")
        return app(var(name), data_arg, prior)

    def dp_model(self, ctx, through_delta: bool) -> Optional[ast.Expr]:
        """A call of a new val ``vote :: {l | adj} -> [eps] -> M[DP(c * eps)] {b :: bool | =}``
        (the exponential mechanism; maybe at twice the index); with ``through_delta`` a call of
        a val ``{d :: D[bool] | Delta[DP(c' * eps)] (d<1>, d<2>) <= 0.0}`` inferring it."""
        from verifier.fuzz.generate import TopDef, app, binop, call, pvar, real, runs, var, FUN
        rng = self.rng
        lists = [b for b in ctx.visible().values() if b.type == LIST_BOOL]
        if not lists or self.helper_depth >= 2:
            return None
        source = rng.choice(lists)
        index, with_eps = self._eps_index(ctx)
        name, l = self.fresh("vote"), self.fresh("l")
        eps_in = var("eps") if with_eps else index
        cost = Fraction(1) if self.chance(0.75) else Fraction(2)
        scale = eps_in if cost == 1 else binop("*", real(Fraction(2)), eps_in)
        body = call("expMech", scale, self._counting_score(), var(l))
        binders = [(l, ast.TList(ast.TBase("bool")), ast.App(var("adj"), ast.TupleLit(runs(l))))]
        if with_eps:
            binders.append(("eps", ast.TBase("real+"), ast.SameRuns()))
        val = self.claim(name, binders, _m(BOOL), with_eps, with_eps, None)
        self._nominal(self.claims[-1], cost, None if with_eps else index.value)
        patterns = (pvar(l, LIST_BOOL),) + ((pvar("eps"),) if with_eps else ())
        self.before += [val, ast.LetDecl(name, patterns, body)]
        fn = FUN(REAL, _m(BOOL)) if with_eps else _m(BOOL)
        self.tops.append(TopDef(name, FUN(LIST_BOOL, fn), 2 if with_eps else 1, has_val=True))
        self.tags.add("infer of a val'd model")
        call_ = app(var(name), var(source.name), *([index] if with_eps else []))
        if not through_delta:
            return call_
        post, pl = self.fresh("post"), self.fresh("l")
        # the model's own bound (read off its claim at its calibrated constant when the program
        # is built: Delta[DP(e)] <= 0, Delta[DP(e)] <= delta, Delta[F] <= delta), or twice or
        # half of it (half: a bound the model does not give)
        factor = rng.choice((Fraction(1), Fraction(1), Fraction(2), Fraction(1, 2)))
        model_plan = self.claims[-1]

        def scaled(e: Optional[ast.Expr]) -> ast.Expr:
            if e is None:
                return real(Fraction(0))
            if factor == 1:
                return e
            if isinstance(e, ast.RealLit):
                return real(e.value * factor)
            return binop("*", real(factor), e)

        def build(_c: Fraction) -> ast.RType:
            model = model_plan.build(model_plan.constant)
            while isinstance(model, ast.RArrow):
                model = model.cod
            if model.div.kind == "DP" and model.delta is None:
                div, bound = ast.Divergence("DP", scaled(model.div.eps)), real(Fraction(0))
            else:
                div, bound = model.div, scaled(model.delta)
            assertion = ast.DivBound(div, *runs("d"), bound)
            params = [ast.RRefine(pl, ast.RSimple(ast.TList(ast.TBase("bool"))),
                                  ast.App(var("adj"), ast.TupleLit(runs(pl))))]
            if with_eps:
                params.append(self._eps_param())
            cod: ast.RType = ast.RRefine("d", ast.RSimple(ast.TDist(ast.TBase("bool"))), assertion)
            for dom in reversed(params):
                cod = ast.RArrow(dom, cod)
            return cod
        from verifier.fuzz.generate import ClaimPlan
        self.val_names.append(post)
        self.claims.append(ClaimPlan(post, "none", "tight" if factor >= 1 else "under", build))
        self.before += [ast.ValDecl(post, build(Fraction(1))), ast.LetDecl(
            post, (pvar(pl, LIST_BOOL),) + ((pvar("eps"),) if with_eps else ()),
            ast.Infer(app(var(name), var(pl), *([var("eps")] if with_eps else []))))]
        self.tags.add("Delta assertion")
        return app(var(post), var(source.name), *([index] if with_eps else []))

    # ---- parallel composition ------------------------------------------------------------------

    def r_parallel(self, t, ctx, depth):
        """``let (a, b) = split db in mlet x = expMech (eps, s, a) in mlet y = expMech (eps, s,
        b) in return (x, y)``: ``split`` a val'd partition with the parts' joint distance."""
        from verifier.fuzz.generate import TopDef, app, binop, call, intlit, pvar, runs, var, FUN, TUP
        rng = self.rng
        if t not in (_m(TUP(BOOL, BOOL)), _m(TUP(REAL, REAL))) or self.helper_depth >= 2:
            return None
        if t == _m(TUP(BOOL, BOOL)) and self.chance(0.6):   # two exponential mechanisms: slow
            return None
        lists = [b for b in ctx.visible().values() if b.type == LIST_BOOL and b.private]
        if not lists:
            return None
        source = rng.choice(lists)
        name, l, x, xs, a, b = (self.fresh(n) for n in ("split", "l", "x", "xs", "a", "b"))
        by_data = self.chance(0.25)
        if by_data:   # the part depends on the record: one change may move it (the val is false)
            step = ast.If(var(x), ast.TupleLit((ast.Cons(var(x), var(a)), var(b))),
                          ast.TupleLit((var(a), ast.Cons(var(x), var(b)))))
            self.tags.add("partition by the data")
        else:         # alternate positions
            step = ast.TupleLit((ast.Cons(var(x), var(b)), var(a)))
        body = ast.Match(var(l), ast.TupleLit((ast.ListLit(()), ast.ListLit(()))), x, xs,
                         ast.Let(ast.PTuple((pvar(a), pvar(b))), app(var(name), var(xs)), step))
        p1, p2 = runs("p")
        fst = lambda e: app(var("fst"), e)  # noqa: E731
        snd = lambda e: app(var("snd"), e)  # noqa: E731
        joint = binop("<=", binop("+", ast.App(var("dist"), ast.TupleLit((fst(p1), fst(p2)))),
                                  ast.App(var("dist"), ast.TupleLit((snd(p1), snd(p2))))), intlit(1))
        lengths = ast.Conj(binop("=", app(var("length"), fst(p1)), app(var("length"), fst(p2))),
                           binop("=", app(var("length"), snd(p1)), app(var("length"), snd(p2))))
        pair = ast.TTuple((ast.TList(ast.TBase("bool")), ast.TList(ast.TBase("bool"))))
        rt = ast.RArrow(self._adj_list("l"), ast.RRefine("p", ast.RSimple(pair), ast.Conj(joint, lengths)))
        self.val_names.append(name)
        self.before += [ast.ValDecl(name, rt), ast.LetDecl(name, (pvar(l, LIST_BOOL),), body, recursive=True)]
        self.tops.append(TopDef(name, FUN(LIST_BOOL, TUP(LIST_BOOL, LIST_BOOL)), 1, has_val=True))
        index, _ = self._eps_index(ctx)
        pa, pb, ra, rb = (self.fresh(n) for n in ("a", "b", "x", "y"))
        if t == _m(TUP(REAL, REAL)):    # Laplace: its loss is exactly its index
            first, second = (call("lapMech", index, app(var("count"), var(p))) for p in (pa, pb))
        else:
            first, second = (call("expMech", index, self._counting_score(), var(p)) for p in (pa, pb))
        release = ast.MLet(pvar(ra), first, ast.MLet(pvar(rb), second, ast.Return(ast.TupleLit((var(ra), var(rb))))))
        self.tags.add("parallel composition")
        return ast.Let(ast.PTuple((pvar(pa), pvar(pb))), app(var(name), var(source.name)), release)
