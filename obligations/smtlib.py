"""Standalone SMT-LIB 2 scripts for obligations, and a checker that runs them.

``to_smtlib(obligation)`` renders the lowered ``Problem`` (``obligations.encoding``), the
same one the z3 back end checks, as a deterministic script: the same obligation always
gives byte-identical text. Layout::

    ; comments: id, kind, provenance, the obligation in program syntax
    (set-option :produce-unsat-cores true)
    (set-logic QF_NRA)                       ; the tightest logic
    (declare-sort |$List[bool]| 0) ...       ; uninterpreted sorts, functions, constants
    (assert (! <fact> :named pi!bounds)) ... ; the encoding of pi / sqrt / exp / log
    (assert (! <h> :named h_eps_pos)) ...    ; hypotheses, then axioms
    (assert (! (not <goal>) :named goal))
    (check-sat)

``unsat`` means the obligation is valid; ``sat`` only that the encoding has a model (the
z3 back end confirms counterexamples, a script cannot).

``check_smtlib(text, solver="z3" | "cvc5", rlimit=None)`` runs a script with a fresh
solver and a deterministic resource limit and returns ``"unsat"``, ``"sat"`` or
``"unknown"``; the certificate checker reuses it. ``Z3Session`` runs scripts one after
another in one z3 context, each from a ``(reset)`` (a fresh solver with no declarations and
no assertions): the z3 back end and the checker use one session per program, which saves
creating a z3 context (a few milliseconds) per obligation. Resource units are the solver's own: z3's
``rlimit`` (default ``DEFAULT_RLIMIT``) and cvc5's ``rlimit-per`` (default
``DEFAULT_CVC5_RLIMIT``, which is of the same order of effort), with a wall-clock backstop
for cvc5 (``CVC5_TIME_BACKSTOP_MS``) because cvc5 does not count resources everywhere.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Collection, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from obligations.encoding import Problem, encode
from obligations.model import Obligation
from obligations.terms import (BOOL, INT, Apply, Const, Op, OpKind, Quantifier, Sort, Term, Var,
                               decimal_text, children, tree_size)
from obligations.z3_native import NativeContext, Z3Error

#: z3's resource limit per check (see ``obligations.z3_backend`` for the policy).
DEFAULT_RLIMIT = 5_000_000
#: The random seed given to z3 (its default, made explicit).
SEED = 0

#: cvc5's ``rlimit-per`` units for ``check_smtlib(..., solver="cvc5")``.
DEFAULT_CVC5_RLIMIT = 500_000
#: A wall-clock backstop for cvc5 (``tlimit-per``, milliseconds). cvc5 polls its resource
#: counter and some of its procedures spend no resources (a small QF_NIRA problem ran for
#: minutes under ``rlimit-per`` 100,000), so the resource limit alone does not bound it.
#: Only an ``unknown`` can come from the backstop, and ``unknown`` never proves anything.
CVC5_TIME_BACKSTOP_MS = 30_000

_SMT_OPS = {
    OpKind.ADD: "+", OpKind.SUB: "-", OpKind.MUL: "*", OpKind.DIV: "/", OpKind.NEG: "-",
    OpKind.TO_REAL: "to_real", OpKind.EQ: "=", OpKind.NE: "distinct", OpKind.LT: "<",
    OpKind.LE: "<=", OpKind.GT: ">", OpKind.GE: ">=", OpKind.AND: "and", OpKind.OR: "or",
    OpKind.NOT: "not", OpKind.IMPLIES: "=>", OpKind.ITE: "ite",
}
_SIMPLE_SYMBOL = re.compile(r"[A-Za-z~!@$%^&*_+=<>.?/-][A-Za-z0-9~!@$%^&*_+=<>.?/-]*\Z")


class SmtLibError(Exception):
    """A script could not be parsed or run by the solver."""


def quote(symbol: str) -> str:
    """``symbol`` as SMT-LIB text: program symbols (``$...``) and non-simple ones in bars."""
    if "|" in symbol or "\\" in symbol:
        raise ValueError(f"cannot quote {symbol!r}")
    return symbol if _SIMPLE_SYMBOL.match(symbol) and not symbol.startswith("$") else f"|{symbol}|"


#: a sub-term shared by several parents and at least this large (as a tree) is printed once,
#: as a ``define-fun`` (a macro z3 and cvc5 expand when they read it: the problem they solve
#: is the same); smaller ones are printed where they occur, so ordinary scripts read as usual
SHARE_SIZE = 40


class _Printer:
    def __init__(self, problem: Problem):
        self.problem = problem
        self.names: Dict[int, str] = {}
        #: the text of each term printed since the last name was added (by id; the terms
        #: are alive for the printer's life): a term shared in the DAG is printed once. A new
        #: name may change the text of a term that contains the named one, so ``_name``
        #: empties it: the text is the same as printed afresh
        self.texts: Dict[int, str] = {}

    def share(self, terms: Sequence[Term]) -> List[str]:
        """The ``define-fun`` commands of the large shared sub-terms of ``terms`` (outside
        quantifiers), children first; later printing refers to them by name."""
        parents: Dict[int, int] = {}
        order: List[Term] = []
        seen: set = set()
        stack: List[Tuple[Term, bool]] = [(t, False) for t in reversed(terms)]
        while stack:
            u, done = stack.pop()
            if done:
                order.append(u)
                continue
            if id(u) in seen:
                continue
            seen.add(id(u))
            if isinstance(u, Quantifier):
                continue
            stack.append((u, True))
            for c in reversed(children(u)):
                parents[id(c)] = parents.get(id(c), 0) + 1
                stack.append((c, False))
        lines = []
        for u in order:
            if isinstance(u, (Apply, Op)) and u.args and parents.get(id(u), 0) > 1 \
                    and tree_size(u) >= SHARE_SIZE:
                name = quote(f"share!{len(self.names) + 1}")
                lines.append(f"(define-fun {name} () {self.sort(u.sort)} {self.term(u)})")
                self._name(u, name)
        return lines

    def _name(self, u: Term, name: str) -> None:
        self.names[id(u)] = name
        self.texts.clear()

    def sym(self, x: object) -> str:
        return quote(self.problem.symbol(x))

    def sort(self, s: Sort) -> str:
        return s.name if s.is_builtin else self.sym(s)

    def term(self, t: Term) -> str:
        known = self.names.get(id(t)) or self.texts.get(id(t))
        if known is None:
            known = self.texts[id(t)] = self._text(t)
        return known

    def _text(self, t: Term) -> str:
        if isinstance(t, Const):
            if t.sort == BOOL:
                return "true" if t.value else "false"
            if t.sort == INT:
                return str(t.value) if t.value >= 0 else f"(- {-t.value})"
            q = abs(t.value)
            text = decimal_text(q) or f"(/ {q.numerator}.0 {q.denominator}.0)"
            return text if t.value >= 0 else f"(- {text})"
        if isinstance(t, Var):
            return self.sym(t)
        if isinstance(t, Apply):
            if not t.args:
                return self.sym(t.func)
            return f"({self.sym(t.func)} {' '.join(self.term(a) for a in t.args)})"
        if isinstance(t, Quantifier):
            bound = " ".join(f"({self.sym(v)} {self.sort(v.sort)})" for v in t.vars)
            return f"({t.kind} ({bound}) {self.term(t.body)})"
        assert isinstance(t, Op) and t.op in _SMT_OPS, f"not lowered: {t}"
        return f"({_SMT_OPS[t.op]} {' '.join(self.term(a) for a in t.args)})"


def _comment(text: str) -> str:
    return "\n".join("; " + line for line in text.splitlines())


def problem_to_smtlib(problem: Problem, only: Optional[Collection[str]] = None, *,
                      comments: bool = True) -> str:
    """The SMT-LIB script of an already lowered problem; with ``only``, just the assertions
    of those names (every declaration is kept), as when an unsat core is re-checked; with
    ``comments=False``, the commands alone (what a solver reads; the same for two
    obligations that differ only in their provenance)."""
    ob, p = problem.obligation, _Printer(problem)
    lines: List[str] = []
    if comments:
        prov = ob.provenance
        lines += [
            f"; privinfer proof obligation {ob.id}",
            f"; kind: {ob.kind.value}",
            f"; rule: {prov.rule}   node: {prov.node}"
            + (f"   at: {prov.span}-{prov.span.end_line}:{prov.span.end_col}" if prov.span else ""),
            _comment(prov.description),
        ]
        if ob.lemma is not None:
            lines.append(f"; lemma: {ob.lemma.lemma}")
        lines.append(_comment(str(ob)))
    lines += ["(set-option :produce-unsat-cores true)", f"(set-logic {problem.logic})"]
    lines += [f"(declare-sort {p.sort(s)} 0)" for s in problem.sorts]
    for f in problem.functions:
        domain = " ".join(p.sort(s) for s in f.domain)
        lines.append(f"(declare-fun {p.sym(f)} ({domain}) {p.sort(f.range)})")
    meaning = dict(problem.definitions) if comments else {}
    for v in problem.constants:
        note = f" ; {meaning[v]}" if v in meaning else ""
        lines.append(f"(declare-const {p.sym(v)} {p.sort(v.sort)}){note}")
    chosen = [a for a in problem.assertions if only is None or a.name in only]
    lines += p.share([a.term for a in chosen])
    headings = {"encoding": "; the encoding of pi, sqrt, exp and log (true facts)",
                "hypothesis": "; hypotheses", "axiom": "; axioms", "goal": "; the goal, negated"}
    role = None
    for a in problem.assertions:
        if only is not None and a.name not in only:
            continue
        if comments and a.role != role:
            role = a.role
            lines.append(headings[role])
        if comments:
            lines.append(_comment(a.comment))
        lines.append(f"(assert (! {p.term(a.term)} :named {quote(a.name)}))")
    lines += ["(check-sat)", "(exit)"]
    return "\n".join(lines) + "\n"


def to_smtlib(obligation: Obligation) -> str:
    """A standalone, deterministic SMT-LIB 2 script for ``obligation`` (see the module doc)."""
    return problem_to_smtlib(encode(obligation))


def write_smtlib_dir(obligations: Iterable[Obligation], directory: Union[str, Path]) -> List[Path]:
    """Write ``<id>.smt2`` for each obligation into ``directory`` (created if needed);
    return the paths in order. Raises ``ValueError`` on repeated ids."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths: List[Path] = []
    for ob in obligations:
        path = out / f"{ob.id}.smt2"
        if path in paths:
            raise ValueError(f"two obligations have the id {ob.id}")
        path.write_text(to_smtlib(ob), encoding="utf-8")
        paths.append(path)
    return paths


def check_smtlib(text: str, solver: str = "z3", rlimit: Optional[int] = None,
                 session: Optional["Z3Session"] = None) -> str:
    """Run the script ``text`` with a fresh ``solver`` ("z3" or "cvc5") under a resource
    limit; return ``"unsat"``, ``"sat"`` or ``"unknown"`` (the answer to its last
    ``check-sat``). Raises ``SmtLibError`` if the solver rejects the script. z3 runs in
    ``session`` when one is given (still from a fresh solver), else in a new context."""
    if solver == "z3":
        return _check_z3(text, DEFAULT_RLIMIT if rlimit is None else rlimit, session)
    if solver == "cvc5":
        return _check_cvc5(text, DEFAULT_CVC5_RLIMIT if rlimit is None else rlimit)
    raise ValueError(f"unknown solver {solver!r} (expected 'z3' or 'cvc5')")


def _check_z3(text: str, rlimit: int, session: Optional["Z3Session"]) -> str:
    return (session or Z3Session()).run(text, rlimit)[0]


class Z3Session:
    """A z3 context whose SMT-LIB interpreter runs one script after another.

    Each ``run`` starts with ``(reset)``, so every script gets a fresh solver with no
    declarations and no assertions, as the z3 binary would give it; ``query`` then asks about
    the last script's answer (``(get-unsat-core)``, ``(get-info :reason-unknown)``). The
    context's term store outlives a reset, so a solver's search (never its answer's
    soundness) may depend on the scripts run earlier in the same session: a caller that wants
    reproducible runs uses one session for one fixed sequence of scripts (one program).

    Scripts are run through z3's own interpreter (not ``parse_smt2_string``) so that
    ``:named`` assertions mean what SMT-LIB says and ``(get-unsat-core)`` names them.
    Not thread-safe: one session per thread."""

    def __init__(self, remember_rechecks: bool = False) -> None:
        self._native = NativeContext()
        #: what callers remember about the scripts they ran here (the z3 back end's verdicts)
        self.memo: Dict[Any, Any] = {}
        #: the z3 back end also remembers the answers of unsat-core re-checks
        #: (``z3_backend.recheck_core``). Off by default: z3 then runs fewer scripts in this
        #: context, and the cores it reports for later problems (which hypotheses an
        #: obligation's reason names) may differ, though never its answers' soundness; the
        #: while campaign, which reports verdicts only, turns it on
        self.remember_rechecks = remember_rechecks

    def _eval(self, text: str) -> str:
        try:
            return self._native.eval(text)
        except Z3Error as e:
            raise SmtLibError(f"z3 rejected the script: {e}") from None

    def run(self, text: str, rlimit: int = DEFAULT_RLIMIT) -> Tuple[str, Optional[int]]:
        """Run ``text`` from a fresh solver under ``rlimit``; return the answer to its last
        ``check-sat`` and the resource units spent. Raises ``SmtLibError`` on a rejected
        script."""
        prelude = (f"(reset)\n(set-option :rlimit {rlimit})\n"
                   f"(set-option :random-seed {SEED})\n(get-info :rlimit)\n")
        output = self._eval(prelude + text)  # the script may end with (exit): count apart
        counts = [int(c) for c in re.findall(r"^\(:rlimit (\d+)\)$",
                                             output + self._eval("(get-info :rlimit)"),
                                             re.MULTILINE)]
        spent = counts[-1] - counts[0] if len(counts) >= 2 else None
        return _last_answer(output, "z3"), spent

    def query(self, command: str) -> str:
        """The output of ``command`` run after the last script (its declarations live)."""
        return self._eval(command).strip()

    def unsat_core(self) -> List[str]:
        """The names in the last script's unsat core (after an ``unsat`` answer)."""
        text = self.query("(get-unsat-core)").strip("()")
        return [_unquote(name) for name in re.findall(r"\|[^|]*\||[^\s|]+", text)]

    def reason_unknown(self) -> str:
        found = re.search(r'"(.*)"', self.query("(get-info :reason-unknown)"))
        return found.group(1) if found else "unknown"


def _unquote(symbol: str) -> str:
    return symbol[1:-1] if symbol.startswith("|") and symbol.endswith("|") else symbol


def _check_cvc5(text: str, rlimit: int) -> str:
    import cvc5  # an optional dependency (pyproject extra "cvc5"): imported only when used

    tm = cvc5.TermManager()
    slv = cvc5.Solver(tm)
    slv.setOption("rlimit-per", str(rlimit))
    slv.setOption("tlimit-per", str(CVC5_TIME_BACKSTOP_MS))
    slv.setOption("seed", str(SEED))
    symbols = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(slv, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "obligation.smt2")
    outputs = []
    try:
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            outputs.append(command.invoke(slv, symbols))
    except RuntimeError as e:
        raise SmtLibError(f"cvc5 rejected the script: {e}") from None
    return _last_answer("\n".join(outputs), "cvc5")


def _last_answer(output: str, solver: str) -> str:
    answers = []
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("(error") or line == "unsupported":
            raise SmtLibError(f"{solver} rejected the script: {output.strip()}")
        word = line.split(" ", 1)[0]  # cvc5 may add an explanation: "unknown (INCOMPLETE)"
        if word in ("sat", "unsat", "unknown"):
            answers.append(word)
    if not answers:
        raise SmtLibError(f"the script has no check-sat ({solver} said {output.strip()!r})")
    return answers[-1]
