"""The catalogue of built-ins (docs/language.md, "Built-in functions"), as data.

One ``Builtin`` per name, in ``BUILTINS`` (name -> entry): its simple type, its meaning, the
ranges of its arguments and, for a mechanism, the derivation rule its relational rule builds
and the theorem of the lemma library that rule rests on; ``CONJUGATE`` gives, per likelihood
family, its conjugate prior and conjugacy lemma. Everyone who needs a built-in's facts reads
them here: the type checker (types), the rules (``mechanism_rules``, ``observe_fold``: rule
names, theorems, conjugacy), the certificate kernel (the theorem each rule must cite, the
built-in a mechanism node must apply, the family a likelihood must draw from). The code of a
built-in registers under its name — its semantics in ``verifier.semantics.evaluator.BUILTINS``,
its relational rule in ``verifier.rules`` (``translate._b_<name>`` or a registered mechanism
rule), its unary Safety rule — and ``tests/test_catalogue.py`` checks that every entry has
every part (a built-in without one fails loudly there, not in a user's proof). Built-ins are called like ordinary
functions on a tuple of arguments (``beta (a, b)``), on one value (``bernoulli p``) or on
``()`` (``uniform ()``); the *arity* counts the components of that argument.

Four kinds:

* ``FUNCTION``: an ordinary function with a type scheme (``scheme``, ranges erased);
* ``CONSTANT``: a value that is not a function (``pi``);
* ``OVERLOADED``: a function whose type depends on its arguments (``expMech`` with or without
  candidates, ``dirichlet`` of any arity, ``getParams`` by distribution family, numeric
  ``min``/``max``/``abs``, ...). It has no scheme: the type checker types each application
  specially, and refuses the name unapplied;
* ``ASSERTION``: a predicate on two runs' values (``adj``, ``adjWithin``, ``dist``), usable only
  inside the assertions of ``val`` declarations.

``signature`` is the documented type with its ranges (``real+ * real+ -> D[[0,1]]``), ``ranges``
the documented range of each argument (``None`` when unrestricted; for a built-in without an
upper bound on its arity the last entry applies to every further argument): range conditions
are proof obligations for the verifier and run-time checks for ``run``. A range is a simple
type with ranges (``real+``, ``nat``, ``[0,1]``, and list types such as ``[k] list``, whose
elements are then in range), or ``(0,1)`` (the open interval). In the data of the Hellinger
mechanisms, ``[k] list`` means: the categories of the prior, a dirichlet over k categories (a
beta prior observes a ``bool list``, whose elements have no range). ``arguments`` names the
arguments of a mechanism in the messages of its range conditions (``the epsilon of lapMech is
positive``). The Safety judgement requires every range of a mechanism's call from here
(``verifier.rules.safety.Safety.arguments``).
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from obligations.records import record, replace
from verifier.language.types import (
    BOOL, INT, REAL, UNIT, Arrow, Dist, Fin, ListType, Monad, Scheme, Simplex, TupleType, Type,
    TypeVar, generalize,
)

FUNCTION = "function"
CONSTANT = "constant"
OVERLOADED = "overloaded"
ASSERTION = "assertion"


@record
class Builtin:
    """One built-in name; see the module docstring."""

    name: str
    kind: str
    signature: str
    meaning: str
    scheme: Optional[Scheme]  # None exactly for OVERLOADED built-ins
    min_args: int
    max_args: Optional[int]  # None: no upper bound
    ranges: Tuple[Optional[str], ...] = ()
    #: a mechanism's derivation rule (the node its relational rule builds, whose schema the
    #: kernel has) and the theorem of the lemma library that rule rests on
    rule: Optional[str] = None
    theorem: Optional[str] = None
    #: the names of the arguments, for messages (``epsilon``, ``delta``, ``query``...)
    arguments: Tuple[str, ...] = ()
    #: a mechanism whose two runs' outputs may be coupled by a shift (``x<2> = x<1> + k``):
    #: the rule of that coupling and the theorem it rests on (docs/verifier.md "Couplings")
    coupling_rule: Optional[str] = None
    coupling_theorem: Optional[str] = None

    def range_of(self, i: int) -> Optional[str]:
        """The documented range of argument ``i`` (from 0), or None."""
        if i < len(self.ranges):
            return self.ranges[i]
        return self.ranges[-1] if self.ranges and self.max_args is None else None

    def argument_name(self, i: int) -> str:
        """How messages call argument ``i`` (from 0): its name, or ``argument 2``."""
        return self.arguments[i] if i < len(self.arguments) else f"argument {i + 1}"

    def accepts(self, n: int) -> bool:
        """Whether ``n`` arguments are a valid arity."""
        return n >= self.min_args and (self.max_args is None or n <= self.max_args)

    @property
    def arity_text(self) -> str:
        """The arity in words: ``no argument``, ``2 arguments``, ``3 or 4 arguments``, ..."""
        def count(n: int) -> str:
            return "no argument" if n == 0 else f"{n} argument{'s' if n > 1 else ''}"

        if self.max_args is None:
            return f"at least {count(self.min_args)}"
        if self.max_args == self.min_args:
            return count(self.min_args)
        return f"{self.min_args} or {count(self.max_args)}"


# The quantified variables of the schemes below: never bound, since every use of a scheme
# instantiates it with fresh variables.
_A, _B = TypeVar(1), TypeVar(1)
_K = TypeVar(1, is_size=True)


def _poly(t: Type) -> Scheme:
    """The scheme quantifying the variables of ``t``."""
    return generalize(t, 0)


def _mono(t: Type) -> Scheme:
    return Scheme.mono(t)


def _fn(*types: Type) -> Type:
    """``_fn(a, b, r)`` is ``a * b -> r``; ``_fn(a, r)`` is ``a -> r``."""
    *params, result = types
    dom = params[0] if len(params) == 1 else TupleType(tuple(params))
    return Arrow(dom, result)


def _entries() -> Tuple[Builtin, ...]:
    def f(name, signature, meaning, scheme, arity, ranges=()):
        return Builtin(name, FUNCTION, signature, meaning, scheme, arity, arity, ranges)

    def over(name, signature, meaning, lo, hi, ranges=()):
        return Builtin(name, OVERLOADED, signature, meaning, None, lo, hi, ranges)

    def pred(name, signature, meaning, scheme, arity):
        return Builtin(name, ASSERTION, signature, meaning, scheme, arity, arity)

    def mech(entry, rule, theorem, arguments, coupling=(None, None)):
        return replace(entry, rule=rule, theorem=theorem, arguments=arguments,
                       coupling_rule=coupling[0], coupling_theorem=coupling[1])

    return (
        # symbolic distributions
        f("bernoulli", "[0,1] -> D[bool]", "the Bernoulli distribution of parameter p",
          _mono(_fn(REAL, Dist(BOOL))), 1, ("[0,1]",)),
        f("beta", "real+ * real+ -> D[[0,1]]", "the beta distribution Beta(a, b)",
          _mono(_fn(REAL, REAL, Dist(REAL))), 2, ("real+", "real+")),
        f("normal", "real * real+ -> D[real]", "the normal distribution of mean m and variance v",
          _mono(_fn(REAL, REAL, Dist(REAL))), 2, (None, "real+")),
        f("uniform", "unit -> D[[0,1]]", "the uniform distribution on [0,1]",
          _mono(_fn(UNIT, Dist(REAL))), 0),
        over("dirichlet", "real+ * ... * real+ -> D[[0,1]^k]",
             "the Dirichlet distribution over k >= 2 categories", 2, None, ("real+",)),
        f("categorical", "[0,1]^k -> D[[k]]", "the categorical distribution of probability vector p",
          _poly(_fn(Simplex(_K), Dist(Fin(_K)))), 1),
        # mechanisms
        mech(f("lapMech", "real+ * real -> M[real]",
               "e + Lap(1/eps): (k eps, 0)-DP for a k-sensitive e",
               _mono(_fn(REAL, REAL, Monad(REAL))), 2, ("real+", None)),
             "LapMech", "mech.laplace", ("epsilon", "query"),
             ("LapMech-Shift", "mech.laplace.shift")),
        mech(f("gaussMech", "real+ * real+ * real -> M[real]",
               "e + N(0, sigma(eps, delta)^2): (k eps, delta)-DP for a k-sensitive e when k eps < 1",
               _mono(_fn(REAL, REAL, REAL, Monad(REAL))), 3, ("real+", "real+", None)),
             "GaussMech", "mech.gaussian", ("epsilon", "delta", "query")),
        mech(over("expMech", "real+ * (X * R -> real) * X -> M[R]  (R finite); "
                             "real+ * (X * R -> real) * X * R list -> M[R]  (candidates)",
                  "the exponential mechanism: r with probability proportional to "
                  "exp(eps score(x, r) / 2)", 3, 4, ("real+", None, None, None)),
             "ExpMech", "mech.exponential", ("epsilon", "score", "input", "candidates")),
        mech(over("hellingerMech", "real+ * real+ * D[T] * X list -> M[D[T]]",
                  "the smoothed-Hellinger exponential mechanism over the posteriors of a beta "
                  "(X = bool) or dirichlet (X = [k]) prior", 4, 4,
                  ("real+", "(0,1)", None, "[k] list")),
             "HellingerMech", "mech.hellinger.poster_corrected",
             ("epsilon", "delta", "prior", "data")),
        mech(over("hellingerMechPure", "real+ * D[T] * X list -> M[D[T]]",
                  "the pure-eps form of hellingerMech", 3, 3, ("real+", None, "[k] list")),
             "HellingerMechPure", "mech.hellinger.pure", ("epsilon", "prior", "data")),
        # operations on symbolic distributions
        over("getParams", "D[[0,1]] -> real+ * real+ (beta); D[real] -> real * real+ (normal); "
                          "D[[0,1]^k] -> real+ * ... (dirichlet); D[bool] -> [0,1] (bernoulli); "
                          "D[[k]] -> [0,1]^k (categorical)",
             "the parameters of a symbolic distribution", 1, 1),
        f("mean", "D[T] -> real", "the mean of a distribution", _poly(_fn(Dist(_A), REAL)), 1),
        f("variance", "D[T] -> real", "the variance of a distribution",
          _poly(_fn(Dist(_A), REAL)), 1),
        f("hellinger", "D[T] * D[T] -> [0,1]", "the Hellinger distance sqrt(1 - BC), a metric",
          _poly(_fn(Dist(_A), Dist(_A), REAL)), 2),
        f("tv", "D[T] * D[T] -> [0,1]", "the total variation (statistical) distance",
          _poly(_fn(Dist(_A), Dist(_A), REAL)), 2),
        over("posteriors", "D[T] * nat -> D[T] list",
             "every posterior a conjugate (beta or dirichlet) prior reaches after n observations",
             2, 2, (None, "nat")),
        f("sigma", "real+ * real+ -> real+", "sqrt(2 ln(1.25/delta)) / eps",
          _mono(_fn(REAL, REAL, REAL)), 2, ("real+", "real+")),
        # numbers, tuples and lists
        f("fst", "'a * 'b -> 'a", "the first component of a pair",
          _poly(_fn(_A, _B, _A)), 2),
        f("snd", "'a * 'b -> 'b", "the second component of a pair",
          _poly(_fn(_A, _B, _B)), 2),
        over("abs", "real -> real (int -> int, [k] -> [k])", "the absolute value", 1, 1),
        over("min", "real * real -> real (the join of the argument types)", "the smaller number", 2, 2),
        over("max", "real * real -> real (the join of the argument types)", "the larger number", 2, 2),
        f("exp", "real -> real+", "the exponential", _mono(_fn(REAL, REAL)), 1),
        f("log", "real+ -> real", "the natural logarithm", _mono(_fn(REAL, REAL)), 1, ("real+",)),
        f("sqrt", "real -> real", "the square root of a non-negative number", _mono(_fn(REAL, REAL)), 1),
        Builtin("pi", CONSTANT, "real", "the constant 3.14159...", _mono(REAL), 0, 0),
        f("length", "T list -> nat", "the length of a list",
          _poly(_fn(ListType(_A), INT)), 1),
        f("count", "bool list -> nat", "the number of true elements", _mono(_fn(ListType(BOOL), INT)), 1),
        f("sum", "real list -> real", "the sum of a list", _mono(_fn(ListType(REAL), REAL)), 1),
        # relations on lists, for assertions only
        pred("adj", "T list * T list -> bool",
             "same length, differ in at most one position (the paper's Phi)",
             _poly(_fn(ListType(_A), ListType(_A), BOOL)), 2),
        pred("adjWithin", "real list * real list * real -> bool",
             "same length, differ in at most one position, and there by at most c",
             _mono(_fn(ListType(REAL), ListType(REAL), REAL, BOOL)), 3),
        pred("allWithin", "real list * real list * real -> bool",
             "same length, and at every position the entries differ by at most c (the "
             "queries of the sparse vector technique: each moves by at most c)",
             _mono(_fn(ListType(REAL), ListType(REAL), REAL, BOOL)), 3),
        pred("dist", "T list * T list -> nat", "the Hamming distance of two lists of the same length",
             _poly(_fn(ListType(_A), ListType(_A), INT)), 2),
    )


#: Every built-in name, in documentation order.
BUILTINS: Dict[str, Builtin] = {b.name: b for b in _entries()}


def mechanism_of_rule(rule: str) -> Optional[Builtin]:
    """The built-in mechanism whose relational rule builds derivation nodes ``rule``."""
    return next((b for b in BUILTINS.values() if b.rule == rule), None)


@record
class Conjugacy:
    """A likelihood family with its conjugate prior family and the lemma giving the closed
    form of the posterior after a list of observations (``/k``: one lemma per number of
    categories, ``/k=K``)."""

    likelihood: str
    prior: str
    lemma: str


#: likelihood family -> its conjugacy (the observe-fold and observe rules, and the kernel)
CONJUGATE: Dict[str, Conjugacy] = {c.likelihood: c for c in (
    Conjugacy("bernoulli", "beta", "conj.beta_bernoulli.list"),
    Conjugacy("categorical", "dirichlet", "conj.dirichlet_categorical.list/k"),
    Conjugacy("normal", "normal", "conj.normal_normal.list"),
)}
