"""The paper's Infer rule (§5, Fig. 5) where ``infer`` has no closed form.

``G ⊢ e : M[F, δ] {x :: T | x<1> = x<2>}`` gives ``G ⊢ infer e : {d :: D[T] | Delta[F] (d<1>,
d<2>) <= δ}``. The rule is read at δ = 0: a model whose inputs are equal in both runs (the
premise EqualInputs) has the same distribution in both, so its two inferred distributions are
equal. The inferred distribution is the symbol ``infer'L<line>'C<col>`` of the model's inputs
(``verifier.translation.inferred``), equal in both runs exactly when the inputs are (the
obligation that says so is the UnitM/Budget one the symbol reaches); a model whose inputs
differ gives two unrelated symbols, about which nothing is proved. The closed forms
(``observe_fold``) are tried first: they know more (the parameters of the posterior).
"""
from __future__ import annotations

from verifier.language import ast as A
from verifier.rules import registry
from verifier.language.resolve import written
from verifier.translation.inferred import infer_symbol, is_val_model, model_call, run_infers
from verifier.translation.symbolic import Env
from verifier.translation.translate import StoredComputation
from obligations import terms as T


@registry.infer_rule
def ObserveFold(b, e: A.Expr, run: int, env: Env):
    """The closed forms: ran of a distribution, a conjugate observe, an observe-fold."""
    from verifier.rules.observe_fold import infer_closed_form
    return infer_closed_form(b, e, run, env)


@registry.infer_rule
def Infer(b, e: A.Expr, run: int, env: Env):
    """``infer e`` without a closed form: the symbol of the model's inputs (module docstring),
    once ``privinfer run`` is known to infer the model exactly. The model's code runs when
    ``infer`` is evaluated: it is reported as a computation made here (Safety walks it, as
    ``infer e``)."""
    tr = b.translator
    continuous = run_infers(e, env, run, b.let_of, lambda x, where: tr.expr(x, run, where))
    call = model_call(tr, e, run, env, b.val_of)
    value = infer_symbol(e, run, env, continuous, call)
    guard = T.and_(*tr._guards) if tr._guards else T.boolean(True)
    tr._stored_sink(StoredComputation(A.Infer(e, e.span), env, guard, run or None))
    where = f"infer@{e.span.line}:{e.span.col}"
    if where not in b.folds:
        bound = (f"; the posteriors of two calls of {written(call[0])} are within the bound of "
                 "its val (Delta[F] <= delta)") if is_val_model(value.term) else ""
        b.folds[where] = b.node("Infer", None, e.span,
                                f"infer at line {e.span.line}: the posterior of a model with "
                                f"equal inputs is the same in both runs (no closed form needed)"
                                + bound)
    return value
