"""Diagnostics with stable codes, kept in one place.

Every user-facing failure of privinfer (bad input, type error, run-time range violation,
an obligation that failed) is a ``Diagnostic``: a stable code from ``CODES``, a message, the
source span and, where one helps, a hint. ``PrivInferError`` carries one or more of them to
the command line, which prints them as ``file:line:col: error[CODE]: message`` followed by the
offending source line and exits with status 2 (input errors) — never a Python traceback.

A claim that is not verified is not an input error: its report carries a ``V`` code (and is
printed in the same ``file:line:col: error[CODE]: message`` form), and the command exits 1.

Codes are grouped by the phase that raises them:

* ``P``: reading and parsing source text;
* ``T``: simple typing;
* ``R``: running a program (range conditions, inference);
* ``V``: relational verification;
* ``C``: certificates;
* ``U``: command-line usage (bad arguments, unreadable files).

A code, once published, keeps its meaning; retire codes rather than reuse them.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from obligations.records import field, record
from verifier.language.ast import Span

CODES = {
    # reading and parsing
    "P001": "the file cannot be read as UTF-8 text",
    "P002": "unexpected character",
    "P003": "unterminated comment",
    "P004": "malformed number",
    "P005": "unexpected token",
    "P006": "unexpected end of input",
    "P007": "nesting too deep",
    "P008": "invalid type",
    "P009": "invalid pattern",
    "P010": "run-indexed variable outside an assertion",
    "P011": "invalid relational type",
    "P012": "invalid annotation",
    # simple typing
    "T001": "unbound variable",
    "T002": "type mismatch",
    "T003": "wrong number of arguments to a built-in",
    "T004": "not a function",
    "T005": "recursive type (occurs check)",
    "T006": "cannot determine the distribution family",
    "T007": "duplicate binding in a pattern",
    "T008": "a val without a definition",
    "T009": "the definition does not fit its val declaration",
    "T010": "equality on a type that has none",
    "T011": "the exponential mechanism needs a finite range",
    "T012": "a built-in that must be applied",
    "T013": "a second val for the same name",
    "T014": "an assertion-only predicate used in code",
    # running
    "R001": "range condition violated",
    "R002": "division by zero",
    "R003": "cannot infer exactly",
    "R004": "no such declaration",
    "R005": "bad --arg or --data value",
    "R006": "evaluation error",
    "R007": "observation with zero probability (no longer raised: observe is total)",
    "R008": "pattern match failure",
    "R009": "the enumeration is too large",
    "R010": "the evaluation did not terminate within the step budget",
    "R011": "a comparison of real numbers could not be decided",
    "R012": "a posterior without a closed form cannot be drawn from or enclosed here",
    "R013": "the arguments of a release are outside the conditions of the entry's claim",
    # verification: why a claim is not verified (``ClaimReport.code``), or a bad --only
    "V001": "an obligation is false",
    "V002": "an obligation could not be decided",
    "V003": "no rule applies",
    "V004": "a lemma hypothesis does not hold",
    "V005": "a missing lemma",
    "V006": "a claim about an unknown declaration",
    "V007": "a recursive function used by verified code has no val",
    "V008": "the claim is false",
    "V009": "the proof uses a claim that is not verified",
    "V010": "a comparison the run cannot always decide depends on private data",
    "V011": "the claim's assumptions relate no two inputs (unsatisfiable): it holds vacuously",
    # certificates
    "C001": "the certificate cannot be read",
    "C002": "the certificate does not match its schema",
    "C003": "the certificate is invalid",
    # usage
    "U001": "file not found or unreadable",
    "U002": "bad command-line argument",
    "U003": "an output path cannot be written",
}


@record
class Diagnostic:
    """One message about one place in the source."""

    code: str
    message: str
    span: Optional[Span] = None
    hint: Optional[str] = None
    notes: Sequence[str] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown diagnostic code {self.code!r}")

    def render(self, source: Optional[str] = None) -> str:
        """``file:line:col: error[CODE]: message``, the source line with a caret, and the hint."""
        where = f"{self.span}: " if self.span is not None else ""
        lines = [f"{where}error[{self.code}]: {self.message}"]
        if source is not None and self.span is not None and self.span.line >= 1:
            src_lines = source.splitlines()
            if self.span.line <= len(src_lines):
                text = src_lines[self.span.line - 1]
                if len(text) > 200:  # keep a window around the column
                    start = max(0, self.span.col - 80)
                    text, offset = text[start:start + 160], start
                else:
                    offset = 0
                text = text.expandtabs(1)
                width = 1
                if self.span.end_line == self.span.line:
                    width = max(1, self.span.end_col - self.span.col)
                col = max(1, self.span.col - offset)
                width = min(width, max(1, len(text) - col + 1))
                lines.append(f"    {text}")
                lines.append("    " + " " * (col - 1) + "^" * width)
        for note in self.notes:
            lines.append(f"  note: {note}")
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


class PrivInferError(Exception):
    """One or more diagnostics; raised by any phase, reported by the command line."""

    def __init__(self, diagnostics: Sequence[Diagnostic] | Diagnostic, source: Optional[str] = None):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: List[Diagnostic] = list(diagnostics)
        self.source = source
        super().__init__("\n".join(d.render() for d in self.diagnostics))

    def render(self) -> str:
        return "\n".join(d.render(self.source) for d in self.diagnostics)

    @property
    def first(self) -> Diagnostic:
        return self.diagnostics[0]


def error(code: str, message: str, span: Optional[Span] = None, hint: Optional[str] = None,
          notes: Sequence[str] = ()) -> PrivInferError:
    """Build (not raise) a single-diagnostic error."""
    return PrivInferError(Diagnostic(code, message, span, hint, tuple(notes)))
