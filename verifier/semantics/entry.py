"""One entry of a program run on the values given for its parameters (``privinfer run``, and
the audit's runs: ``verifier.audit``).

The parameters of the entry and their types (``entry_parameters``), the values given for them
— ``--arg`` expressions in the language's syntax and ``--data`` columns of CSV files — read and
checked against those types (``bind_arguments``, ``conform``), the noise source
(``_noise_source``) and the run itself (``run_program``). The rules of reading are those of
``privinfer run`` (``verifier/commands/run.py`` documents them); the while-language's ``run``
reads its CSV columns with the same functions.
"""
from __future__ import annotations

import csv
import io
import re
from fractions import Fraction
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from obligations.records import record
from verifier.errors import Diagnostic, PrivInferError, error
from verifier.language import ast
from verifier.language.lexer import number_value
from verifier.language import types as ty
from verifier.language.parser import parse_expr
from verifier.language.pretty import pretty_type
from verifier.language.typecheck import TypedProgram
from verifier.semantics import monad
from verifier.semantics.distributions import (
    Bernoulli, Beta, Categorical, Dirichlet, Distribution, Normal, Uniform, check_probabilities,
)
from verifier.semantics import reals
from verifier.semantics.posterior import Posterior
from verifier.semantics.evaluator import (
    BUILTINS, CONSTANTS, Evaluator, check_annotation, check_value, evaluate_expr,
)
from verifier.semantics.values import (
    UNIT, Builtin, Closure, ConsList, Value, a_kind, format_value, is_number, to_json, to_real,
)


@record
class RunResult:
    """What ``privinfer run`` reports."""

    entry: str
    value: Value
    kind: str  # "value" | "distribution" | "sample"
    releasable: bool
    source: str

    @property
    def printed(self) -> str:
        if isinstance(self.value, Posterior):  # with the enclosures of its mean and normaliser
            return self.value.show()
        return format_value(self.value)

    def to_json(self) -> Dict[str, Any]:
        return {"entry": self.entry, "value": to_json(self.value), "printed": self.printed,
                "kind": self.kind, "releasable": self.releasable, "source": self.source}


def run_program(program: ast.Program, typed: Optional[TypedProgram], entry: str, arg_specs: Sequence[str],
                data_specs: Sequence[str], source: Any, want_distribution: bool = False,
                check: Optional[Callable[[List[Value], bool], None]] = None) -> RunResult:
    """Evaluate ``entry`` on the ``--arg`` / ``--data`` specifications (see the module
    docstring); sample an M-value with ``source`` (or infer it with ``want_distribution``).
    ``check(arguments, releasing)``, when given, sees the bound arguments (in order) before
    anything is evaluated, and whether the run is a release, and may refuse them by raising.
    A release (a sample drawn with a releasable source) is evaluated without the evaluator's
    artificial limits (``values.release_evaluation``): a limit reached on one input and not
    on its neighbour would publish an error that the verified semantics does not have."""
    if getattr(source, "releasable", False) and not want_distribution:
        from verifier.semantics.values import release_evaluation
        with release_evaluation():
            return _run_program(program, typed, entry, arg_specs, data_specs, source, False, check)
    return _run_program(program, typed, entry, arg_specs, data_specs, source, want_distribution, check)


def _run_program(program: ast.Program, typed: Optional[TypedProgram], entry: str,
                 arg_specs: Sequence[str], data_specs: Sequence[str], source: Any,
                 want_distribution: bool,
                 check: Optional[Callable[[List[Value], bool], None]] = None) -> RunResult:
    evaluator = Evaluator(program, typed)
    decl = evaluator.entry(entry)
    params = entry_parameters(program, typed, decl)
    values = bind_arguments(params, decl.name, arg_specs, data_specs)
    if check is not None:
        check([values[p.name] for p in params],
              bool(getattr(source, "releasable", False)) and not want_distribution)
    value = evaluator.call(entry, [values[p.name] for p in params])
    if isinstance(value, monad.MValue):
        with evaluator.terminating(decl.span):
            if want_distribution:
                return RunResult(entry, monad.infer(value, decl.span), "distribution", False,
                                 source.description)
            return RunResult(entry, monad.sample(value, source), "sample", bool(source.releasable),
                             source.description)
    return RunResult(entry, value, "value", False, source.description)


def _noise_source(seed: Optional[int]) -> Any:
    from verifier.semantics.noise import secure_source, seeded_source
    return secure_source() if seed is None else seeded_source(seed)


def _with_source(exc: PrivInferError, program: ast.Program) -> PrivInferError:
    """``exc`` with the program text attached when every located diagnostic is in it."""
    if exc.source is None and all(d.span is None or d.span.file == program.file for d in exc.diagnostics):
        exc.source = program.source
    return exc


# --------------------------------------------------------------------------------------
# parameters and their types
# --------------------------------------------------------------------------------------


@record
class Parameter:
    """One parameter of the entry: its name for ``--arg``, its position, its simple type
    (the written one if any, else the inferred one; ``None`` if unknown) and the type written
    for it (``val`` or annotation), with ranges."""

    name: str
    position: int  # 1-based
    type: Optional[ty.Type]
    written: Optional[ast.SimpleType]
    #: the entry's val gives this parameter a function type (a relational one, which a
    #: function written on the command line cannot be checked against)
    claimed_function: bool = False

    @property
    def label(self) -> str:
        return self.name if self.name.startswith("#") else f"{self.name} (#{self.position})"


def entry_parameters(program: ast.Program, typed: Optional[TypedProgram], decl: ast.LetDecl) -> List[Parameter]:
    """The parameters of ``decl`` with their types (see ``Parameter``)."""
    inferred: List[Optional[ty.Type]] = [None] * len(decl.params)
    if typed is not None:
        t: ty.Type = typed.scheme_of(decl).body
        for i in range(len(decl.params)):
            t = ty.prune(t)
            if not isinstance(t, ty.Arrow):
                break
            inferred[i], t = t.dom, t.cod
    declared = _val_parameter_types(program.find_val(decl.name), len(decl.params))
    functions = _function_domains(program.find_val(decl.name), len(decl.params))
    params = []
    for i, p in enumerate(decl.params):
        name = p.name if isinstance(p, ast.PVar) else f"#{i + 1}"
        written = p.annot if isinstance(p, (ast.PVar, ast.PWild)) and p.annot is not None else declared[i]
        # a written type is at least as precise as the inferred one (`k : [3]` in a val may be
        # used as a real in the body)
        simple = ty.from_syntax(written) if written is not None else inferred[i]
        params.append(Parameter(name, i + 1, simple, written, i in functions))
    return params


def _function_domains(val: Optional[ast.ValDecl], count: int) -> set:
    """The positions (0-based) among the first ``count`` of a ``val``'s arrow chain whose
    domain is a function type."""
    out, rt = set(), val.rtype if val is not None else None
    for i in range(count):
        while isinstance(rt, ast.RRefine):
            rt = rt.base
        if not isinstance(rt, ast.RArrow):
            break
        dom = rt.dom
        while isinstance(dom, ast.RRefine):
            dom = dom.base
        if isinstance(dom, ast.RArrow) or isinstance(dom, ast.RSimple) and \
                isinstance(dom.type, ast.TArrow):
            out.add(i)
        rt = rt.cod
    return out


def _val_parameter_types(val: Optional[ast.ValDecl], count: int) -> List[Optional[ast.SimpleType]]:
    """The written simple types of the first ``count`` arguments of a ``val``'s arrow chain."""
    out: List[Optional[ast.SimpleType]] = [None] * count
    rt = val.rtype if val is not None else None
    for i in range(count):
        while isinstance(rt, ast.RRefine):
            rt = rt.base
        if isinstance(rt, ast.RArrow):
            dom = rt.dom
            while isinstance(dom, ast.RRefine):
                dom = dom.base
            out[i] = dom.type if isinstance(dom, ast.RSimple) else None
            rt = rt.cod
        elif isinstance(rt, ast.RSimple) and isinstance(rt.type, ast.TArrow):
            out[i] = rt.type.dom
            rt = ast.RSimple(rt.type.cod)
        else:
            break
    return out


def bind_arguments(params: List[Parameter], entry: str, arg_specs: Sequence[str],
                   data_specs: Sequence[str]) -> Dict[str, Value]:
    """Parameter name -> checked value, from the ``--arg`` and ``--data`` specifications."""
    by_name: Dict[str, Parameter] = {}
    for p in params:
        by_name[p.name] = p
        by_name[f"#{p.position}"] = p
    expected = _expected(params, entry)
    given: Dict[str, Value] = {}
    specs = [("--arg", s) for s in arg_specs] + [("--data", s) for s in data_specs]
    for option, spec in specs:
        name, sep, rest = spec.partition("=")
        name = name.strip()
        if not sep or not name:
            shape = "NAME=VALUE" if option == "--arg" else "NAME=FILE.csv:COLUMN"
            raise error("R005", f"{option} {spec!r} is not of the form {shape}")
        if name not in by_name:
            raise error("R005", f"{option} {name}: {entry} has no parameter {name!r}; {expected}")
        param = by_name[name]
        if param.name in given:
            raise error("R005", f"{option} {name}: the parameter {param.label} is given twice")
        if option == "--arg":
            given[param.name] = _argument_value(param, rest)
        else:
            given[param.name] = _data_value(param, rest)
    missing = [p.label for p in params if p.name not in given]
    if missing:
        raise error("R005", f"missing value for the parameter{'s' if len(missing) > 1 else ''} "
                            f"{', '.join(missing)} of {entry}; {expected}",
                    hint="give each parameter with --arg NAME=VALUE or --data NAME=FILE.csv:COLUMN")
    return given


def _expected(params: List[Parameter], entry: str) -> str:
    if not params:
        return f"{entry} takes no parameters"
    listing = ", ".join(f"{p.name} : {_type_text(p)}" for p in params)
    return f"expected: {listing}"


def _type_text(p: Parameter) -> str:
    if p.written is not None:
        return pretty_type(p.written)
    return ty.pretty(p.type) if p.type is not None else "?"


# --------------------------------------------------------------------------------------
# --arg
# --------------------------------------------------------------------------------------


def _argument_value(param: Parameter, text: str) -> Value:
    where = f"--arg {param.name}"
    if param.claimed_function:
        raise error("U002", f"{where}: the entry's val gives {param.name} a function type, and a "
                            "function given on the command line cannot be checked against it "
                            "(the claim holds for functions of that type only)",
                    hint="run a definition that passes a function with a verified val (or a fun "
                         "the verifier checks in place), as main does in "
                         "benchmarks/programs/classic/higher_order_twice.pinf")
    try:
        expr = parse_expr(text, f"<{where}>")
        free = _free_names(expr) - set(BUILTINS) - set(CONSTANTS)
        if free:
            raise error("R005", f"{where}: the value must be a closed expression, but it mentions "
                                f"{', '.join(sorted(free))}", expr.span,
                        hint="use literals, lists, tuples and built-ins such as beta (1.0, 1.0)")
        value = evaluate_expr(expr)
    except PrivInferError as exc:
        if exc.source is None:
            exc.source = text
        raise
    value = conform(value, param, where)
    odd = irrational_part(value)
    if odd is not None:
        raise error("U002", f"{where}: {odd} (in the value {text.strip()!r}) is not a rational "
                            "number",
                    hint="give real inputs as decimals or quotients of integers (1.5, 0.1, "
                         "1.0 / 3.0): the verifier's Decidable condition relies on real inputs "
                         "being rational, so that every comparison the run makes is decided "
                         "(docs/reals.md)")
    return value


def irrational_part(value: Value) -> Optional[str]:
    """The first part of an input ``value`` that is not an exact rational (a ``Real`` such as
    ``sqrt 2.0``, a distribution with such a parameter, a computation whose draws need not be
    rational), in words; None when every number in it is rational. The verifier's Decidable
    condition (docs/reals.md) accepts comparisons on the entry's real inputs because they are
    rational: ``run`` is where that is checked."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, reals.Real):
            return format_value(v)
        if isinstance(v, (bool, int, Fraction)) or v is UNIT:
            continue
        if isinstance(v, ConsList):
            stack.extend(v)
        elif isinstance(v, tuple):
            stack.extend(v)
        elif isinstance(v, Distribution):
            if any(irrational_part(q) is not None for q in v.params()):
                return v.format()
        elif isinstance(v, monad.Return):
            stack.append(v.value)
        elif isinstance(v, monad.Ran) and isinstance(v.dist, Distribution):
            if isinstance(v.dist, Normal) or irrational_part(v.dist) is not None:
                return f"the computation ran {v.dist.format()} (its draws need not be rational)"
        elif isinstance(v, monad.MValue):
            return "a computation whose draws need not be rational (give ran of a beta, " \
                   "uniform, dirichlet, bernoulli or categorical law, or return of a value)"
        # closures and built-ins: what they compute is code, walked by the verifier
    return None


def _free_names(expr: ast.Expr) -> set:
    """Names used in ``expr`` and bound nowhere in it (a conservative closedness check)."""
    used, bound, stack = set(), set(), [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Var):
            used.add(node.name)
        elif isinstance(node, (ast.PVar,)):
            bound.add(node.name)
        elif isinstance(node, ast.LetRec):
            bound.add(node.name)
        elif isinstance(node, ast.Match):
            bound.update({node.head, node.tail})
        stack.extend(ast.children(node))
    return used - bound


# --------------------------------------------------------------------------------------
# --data
# --------------------------------------------------------------------------------------


def _data_value(param: Parameter, spec: str) -> Value:
    where = f"--data {param.name}"
    path, sep, column = spec.rpartition(":")
    if not sep or not path or not column:
        raise error("R005", f"{where}: {spec!r} is not of the form FILE.csv:COLUMN")
    element_type, element_written = _list_element(param, where)
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise error("U001", f"{where}: cannot read {path}: {reason}") from None
    cells = _column_cells(text, path, column.strip(), element_type, where)
    values = []
    for line, col, cell in cells:
        span = ast.Span(path, line, col, line, col + max(1, len(cell)))
        try:
            value = _parse_cell(cell, element_type, span, where)
            if element_written is not None:
                value = check_annotation(value, element_written, f"{param.name} element", span)
        except PrivInferError as exc:
            raise PrivInferError([Diagnostic("R005", d.message, d.span, d.hint) for d in exc.diagnostics],
                                 text) from None
        values.append(value)
    return ConsList.from_sequence(values)


def _list_element(param: Parameter, where: str) -> Tuple[ty.Type, Optional[ast.SimpleType]]:
    t = ty.prune(param.type) if param.type is not None else None
    written = param.written.elem if isinstance(param.written, ast.TList) else None
    if t is None or isinstance(t, ty.TypeVar):
        return ty.TypeVar(0), written
    if not isinstance(t, ty.ListType):
        raise error("R005", f"{where}: --data needs a list parameter, but {param.label} has type {ty.pretty(t)}")
    elem = ty.prune(t.elem)
    if not (isinstance(elem, (ty.TypeVar, ty.Fin)) or elem in (ty.BOOL, ty.INT, ty.REAL)):
        raise error("R005", f"{where}: --data reads lists of bool, int, [k] or real, not {ty.pretty(t)}")
    return elem, written


def _column_cells(text: str, path: str, column: str, element: ty.Type, where: str) -> List[Tuple[int, int, str]]:
    """(line, column, cell) for every data row of the chosen CSV column."""
    rows: List[Tuple[int, List[str], str]] = []
    reader = csv.reader(io.StringIO(text))
    raw_lines = text.splitlines()
    for row in reader:
        if not row or all(not c.strip() for c in row):
            continue
        line = reader.line_num
        rows.append((line, row, raw_lines[line - 1] if line <= len(raw_lines) else ""))
    if not rows:
        raise error("R005", f"{where}: {path} has no rows")
    if re.fullmatch(r"\d+", column):
        index = int(column)
        first_line, first_row, _ = rows[0]
        if index < len(first_row) and not _valid_cell(first_row[index], element):
            rows = rows[1:]  # a header
    else:
        header_line, header, _ = rows[0]
        names = [h.strip() for h in header]
        if column not in names:
            raise error("R005", f"{where}: {path} has no column {column!r} (columns: {', '.join(names)})",
                        ast.Span(path, header_line, 1, header_line, 1))
        index = names.index(column)
        rows = rows[1:]
    cells = []
    for line, row, raw in rows:
        if index >= len(row):
            raise PrivInferError(Diagnostic("R005", f"{where}: row has {len(row)} column(s), no column {index}",
                                            ast.Span(path, line, 1, line, len(raw) + 1)), text)
        col = _cell_column(raw, row, index)
        cells.append((line, col, row[index].strip()))
    return cells


def _cell_column(raw: str, row: List[str], index: int) -> int:
    """The 1-based column of cell ``index`` in ``raw`` (exact for unquoted cells)."""
    col = 1
    for cell in row[:index]:
        col += len(cell) + 1
    stripped = row[index].lstrip()
    return col + (len(row[index]) - len(stripped))


def _valid_cell(cell: str, element: ty.Type) -> bool:
    try:
        _parse_cell(cell.strip(), element, None, "")
    except PrivInferError:
        return False
    return True


_BOOLS = {"true": True, "false": False, "1": True, "0": False}


def _parse_cell(cell: str, element: ty.Type, span: Optional[ast.Span], where: str) -> Value:
    element = ty.prune(element)
    if cell == "":
        raise error("R005", f"{where}: empty cell", span)
    if element == ty.BOOL:
        if cell.lower() not in _BOOLS:
            raise error("R005", f"{where}: {_shown(cell)} is not a bool (true, false, 1 or 0)", span)
        return _BOOLS[cell.lower()]
    if element == ty.INT or isinstance(element, ty.Fin):
        if not re.fullmatch(r"[+-]?\d+", cell):
            raise error("R005", f"{where}: {_shown(cell)} is not an integer", span)
        value = _signed(cell, span, where)
        if isinstance(element, ty.Fin) and element.k is not None and not 0 <= value < element.k:
            raise error("R005", f"{where}: {value} is not in [{element.k}] = {{0, ..., {element.k - 1}}}", span)
        return value
    if element == ty.REAL:
        return _real_cell(cell, span, where)
    # an element type the program leaves open: the most specific reading
    if cell.lower() in ("true", "false"):
        return cell.lower() == "true"
    if re.fullmatch(r"[+-]?\d+", cell):
        return _signed(cell, span, where)
    return _real_cell(cell, span, where)


def _real_cell(cell: str, span: Optional[ast.Span], where: str) -> Value:
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", cell):
        raise error("R005", f"{where}: {_shown(cell)} is not a real number", span)
    return Fraction(_signed(cell, span, where))


def _signed(cell: str, span: Optional[ast.Span], where: str) -> Value:
    """A numeric cell read with the limits of source literals (``lexer.number_value``)."""
    negative = cell.startswith("-")
    try:
        value = number_value(cell[1:] if cell[:1] in "+-" else cell, span)
    except PrivInferError as exc:
        d = exc.first
        raise error("R005", f"{where}: {d.message}", span, d.hint) from None
    return -value if negative else value


def _shown(cell: str) -> str:
    """A cell in a message, shortened when long."""
    return repr(cell) if len(cell) <= 40 else repr(cell[:40]) + f"... ({len(cell)} characters)"


# --------------------------------------------------------------------------------------
# checking a value against a parameter's type
# --------------------------------------------------------------------------------------


def conform(value: Value, param: Parameter, where: str) -> Value:
    """``value`` checked against ``param``'s simple type and written ranges (R005); ints given
    for reals become exact reals."""
    try:
        if param.type is not None:
            value = _conform(value, param.type, "")
        if param.written is not None:
            value = _check_ranges(value, param.written, param.name)
    except PrivInferError as exc:
        first = exc.first
        raise error("R005", f"{where}: {first.message}", None, first.hint) from None
    return value


def _mismatch(value: Value, t: ty.Type, where: str) -> PrivInferError:
    return error("R005", f"{where}{format_value(value)} ({a_kind(value)}) is not of type {ty.pretty(t)}")


def _conform(value: Value, t: ty.Type, where: str) -> Value:
    """``value`` checked against ``t``; ``where`` prefixes messages about nested positions."""
    t = ty.prune(t)
    if isinstance(t, ty.TypeVar):
        return value
    if t == ty.UNIT:
        if value is not UNIT:
            raise _mismatch(value, t, where)
        return value
    if t == ty.BOOL:
        if not isinstance(value, bool):
            raise _mismatch(value, t, where)
        return value
    if t == ty.INT or isinstance(t, ty.Fin):
        if not (isinstance(value, int) and not isinstance(value, bool)):
            raise _mismatch(value, t, where)
        if isinstance(t, ty.Fin) and t.k is not None and not 0 <= value < t.k:
            raise error("R005", f"{where}{value} is not in [{t.k}] = {{0, ..., {t.k - 1}}}")
        return value
    if t == ty.REAL:
        if not is_number(value):
            raise _mismatch(value, t, where)
        return to_real(value)
    if isinstance(t, ty.Simplex):
        if not isinstance(value, tuple) or (t.k is not None and len(value) != t.k):
            raise _mismatch(value, t, where)
        return check_probabilities(value, "a point of the simplex", None)
    if isinstance(t, ty.ListType):
        if not isinstance(value, ConsList):
            raise _mismatch(value, t, where)
        items = [_conform(v, t.elem, f"{where}in element {i + 1} of the list, ") for i, v in enumerate(value)]
        return ConsList.from_sequence(items)
    if isinstance(t, ty.TupleType):
        if not isinstance(value, tuple) or len(value) != len(t.items):
            raise _mismatch(value, t, where)
        return tuple(_conform(v, item, f"{where}in component {i + 1} of the tuple, ")
                     for i, (v, item) in enumerate(zip(value, t.items)))
    if isinstance(t, ty.Dist):
        if not isinstance(value, Distribution) or not _family_fits(value, ty.prune(t.elem)):
            raise _mismatch(value, t, where)
        return value
    if isinstance(t, ty.Monad):
        if not isinstance(value, monad.MValue):
            raise _mismatch(value, t, where)
        return value
    if isinstance(t, ty.Arrow):
        if not isinstance(value, (Closure, Builtin)):
            raise _mismatch(value, t, where)
        return value
    raise _mismatch(value, t, where)


def _family_fits(d: Distribution, elem: ty.Type) -> bool:
    if isinstance(elem, ty.TypeVar):
        return True
    if elem == ty.REAL:
        return isinstance(d, (Beta, Uniform, Normal))
    if elem == ty.BOOL:
        return isinstance(d, Bernoulli)
    if isinstance(elem, ty.Fin):
        return isinstance(d, Categorical) and (elem.k is None or len(d.probs) == elem.k)
    if isinstance(elem, ty.Simplex):
        return isinstance(d, Dirichlet) and (elem.k is None or len(d.alphas) == elem.k)
    return True


def _check_ranges(value: Value, written: ast.SimpleType, name: str) -> Value:
    """The written ranges of ``written`` (lists and tuples traversed: ``check_value``)."""
    return check_value(value, written, name, None)
