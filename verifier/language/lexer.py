"""The tokenizer of the PrivInfer surface language.

``tokenize(text, filename)`` turns source text into a list of ``Token`` ending with one
``EOF`` token. It is a single loop over one compiled master regular expression, so large
inputs (a list literal of 10^5 elements) lex in a fraction of a second.

Token kinds (``Token.kind``):

* ``"INT"`` (``value`` an ``int``), ``"REAL"`` (``value`` an exact ``Fraction``): ``3``,
  ``2.5``, ``2.``, ``1e-8``, ``1.5e3``;
* ``"IDENT"``: letters, digits, ``_`` and ``'``, not starting with a digit, not a keyword;
  ``DP SD HD KL M D Delta list real`` ... are identifiers, recognised by the parser in context;
* ``"RUNVAR"`` (``value`` a pair ``(name, run)``): ``x<1>``, ``x<2>``, ``x◁`` (run 1) and ``x▷``
  (run 2), written without spaces — ``a < 1`` with spaces is a comparison;
* a keyword or symbol: the kind is its text (``"let"``, ``"->"``, ``"("``, ``"_"``, ...);
* ``"EOF"``, placed right after the last token.

Comments ``(* ... *)`` nest. Errors: ``P002`` unexpected character, ``P003`` unterminated
comment (at its opening), ``P004`` malformed number.
"""
from __future__ import annotations

import re
import unicodedata
from fractions import Fraction
from typing import List, Optional, Union

from verifier.errors import PrivInferError, error
from verifier.language.ast import Span

KEYWORDS = frozenset(
    "let rec in fun if then else match with return mlet observe infer ran true false not val "
    "forall exists".split()
)

#: Multi-character symbols first: the regex alternation takes the first that matches.
SYMBOLS = ("[@", "::", "->", "=>", "<>", "<=", ">=", "&&", "||", "/\\", "\\/", "==", "*)",
           "(", ")", "[", "]", "{", "}", ",", ";", "|", ":", ".", "=", "<", ">", "+", "-",
           "*", "/", "~", "^")

#: Literals whose decimal digits or exponent exceed this are refused (P004) instead of
#: making the exact ``Fraction`` arbitrarily expensive.
MAX_LITERAL_DIGITS = 4000

_MASTER = re.compile(
    r"[ \t]*(?:"
    r"(?P<nl>\n[ \t\n]*)"
    r"|(?P<word>(?P<name>[^\W\d][\w']*)(?:<[0-9]+>|[◁▷])?)"
    r"|(?P<number>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?(?P<badnum>[\w'.]+)?)"
    r"|(?P<comment>\(\*)"
    r"|(?P<sym>" + "|".join(re.escape(s) for s in SYMBOLS) + ")"
    r"|(?P<bad>[^ \t]))"
)
_COMMENT_DELIM = re.compile(r"\(\*|\*\)")

_CHAR_HINTS = {
    "!": "write 'not e' for negation and '<>' for inequality",
    "&": "conjunction is written '&&' (or '/\\' in assertions)",
    "\\": "assertions use '/\\' and '\\/'",
    '"': "the language has no strings",
    "'": "a quote may only continue a name, as in x'",
    "◁": "write the run-indexed variable without a space: x◁",
    "▷": "write the run-indexed variable without a space: x▷",
    "\u00a0": "this is a non-breaking space; use an ordinary space",
}


class Token:
    """One token: its kind, source text, value (for literals and run variables) and place.

    ``start``/``end`` are offsets into the (line-end normalised) text; ``line``/``col`` are
    1-based; a token never spans lines, so it ends at ``line``, ``col + len(text)``.
    """

    __slots__ = ("kind", "text", "value", "start", "end", "line", "col", "file")

    def __init__(self, kind: str, text: str, value: object, start: int, end: int,
                 line: int, col: int, file: str):
        self.kind = kind
        self.text = text
        self.value = value
        self.start = start
        self.end = end
        self.line = line
        self.col = col
        self.file = file

    @property
    def span(self) -> Span:
        return Span(self.file, self.line, self.col, self.line, self.col + (self.end - self.start))

    def describe(self) -> str:
        """How the token is named in messages: ``'in'``, ``end of input``, ..."""
        if self.kind == "EOF":
            return "end of input"
        text = self.text if len(self.text) <= 30 else self.text[:27] + "..."
        return f"'{text}'"

    def __repr__(self) -> str:
        return f"Token({self.kind!r}, {self.text!r}, {self.line}:{self.col})"


def tokenize(text: str, filename: str = "<input>") -> List[Token]:
    """The tokens of ``text``, ending with an ``EOF`` token.

    CRLF and lone CR count as line ends. Raises ``PrivInferError`` (with ``source`` set to
    ``text``) for an unexpected character (P002), an unterminated comment (P003) or a
    malformed number (P004).
    """
    try:
        return _tokenize(text, filename)
    except PrivInferError as exc:
        exc.source = text
        raise


def _tokenize(original: str, filename: str) -> List[Token]:
    text = original.replace("\r\n", "\n").replace("\r", "\n") if "\r" in original else original
    tokens: List[Token] = []
    append = tokens.append
    finditer = _MASTER.finditer
    keywords = KEYWORDS
    line, line_start = 1, 0
    pos = 0
    while True:
        # One pass of finditer; restarted after each comment, which is skipped by hand.
        # Every character but a blank matches some alternative and blanks are consumed
        # before each token, so finditer skips nothing but trailing blanks.
        for m in finditer(text, pos):
            kind = m.lastgroup
            start = m.start(kind)
            end = m.end()
            if kind == "word":
                word = m.group(kind)
                if word[-1] in ">◁▷":
                    append(_run_var(word, m.group("name"), start, end, line,
                                    start - line_start + 1, filename))
                elif word in keywords or word == "_":
                    append(Token(word, word, None, start, end, line, start - line_start + 1,
                                 filename))
                else:
                    append(Token("IDENT", word, None, start, end, line, start - line_start + 1,
                                 filename))
            elif kind == "sym":
                sym = m.group(kind)
                append(Token(sym, sym, None, start, end, line, start - line_start + 1, filename))
            elif kind == "number":
                number = m.group(kind)
                col = start - line_start + 1
                if m.group("badnum") is not None:
                    raise error("P004", f"malformed number '{number}'",
                                Span(filename, line, col, line, col + len(number)),
                                "put a space or an operator between a number and a name, "
                                "e.g. '2 * x'; exponents are written 1e-8 or 1.5e3")
                if number.isdigit() and len(number) <= 18:
                    append(Token("INT", number, int(number), start, end, line, col, filename))
                else:
                    append(_number(number, start, end, line, col, filename))
            elif kind == "nl":
                line += text.count("\n", start, end)
                line_start = text.rfind("\n", start, end) + 1
            elif kind == "comment":
                pos = _skip_comment(text, start, line, start - line_start + 1, filename)
                newlines = text.count("\n", start, pos)
                if newlines:
                    line += newlines
                    line_start = text.rfind("\n", start, pos) + 1
                break
            else:
                raise _bad_char(text, start, line, start - line_start + 1, filename)
        else:
            break
    if tokens:
        last = tokens[-1]
        append(Token("EOF", "", None, last.end, last.end, last.line,
                     last.col + (last.end - last.start), filename))
    else:
        append(Token("EOF", "", None, 0, 0, 1, 1, filename))
    return tokens


def _run_var(word: str, name: str, start: int, end: int, line: int, col: int,
             filename: str) -> Token:
    if name in KEYWORDS or name == "_":
        raise error("P005", f"'{name}' cannot be run-indexed",
                    Span(filename, line, col, line, col + end - start))
    if word.endswith(">") and not word.endswith(("<1>", "<2>")):
        index = word[len(name):]
        raise error("P005", f"'{word}' has the run index {index[1:-1]}: there are two runs",
                    Span(filename, line, col, line, col + end - start),
                    f"{name}<1> and {name}<2> are the values of {name} in the left and right "
                    f"runs; for comparisons put spaces around '<' and '>'")
    run = 2 if word.endswith(("<2>", "▷")) else 1
    return Token("RUNVAR", word, (name, run), start, end, line, col, filename)


def _number(text: str, start: int, end: int, line: int, col: int, filename: str) -> Token:
    value = number_value(text, Span(filename, line, col, line, col + len(text)))
    return Token("INT" if isinstance(value, int) else "REAL", text, value, start, end, line, col, filename)


def number_value(text: str, span: Optional[Span] = None) -> Union[int, Fraction]:
    """The exact value of an unsigned number literal (digits, an optional fraction and an
    optional exponent), refused with P004 beyond ``MAX_LITERAL_DIGITS`` digits or exponent:
    ``1e999999999`` would take minutes to expand. Every number privinfer reads goes through
    here (source, ``--arg``, CSV cells)."""
    mantissa, _, exponent = text.lower().partition("e")
    if len(mantissa) > MAX_LITERAL_DIGITS or (exponent and len(exponent.lstrip("+-")) > 6) or \
            (exponent and abs(int(exponent)) > MAX_LITERAL_DIGITS):
        raise error("P004", f"number literal too large: '{text[:20]}...'" if len(text) > 20
                    else f"number literal too large: '{text}'", span,
                    f"literals may have at most {MAX_LITERAL_DIGITS} digits and exponents")
    if "." in text or exponent:
        return Fraction(text)
    return int(text)


def _skip_comment(text: str, start: int, line: int, col: int, filename: str) -> int:
    """The offset just after the comment opened at ``start`` (comments nest)."""
    openers = [start]
    pos = start + 2
    while openers:
        m = _COMMENT_DELIM.search(text, pos)
        if m is None:
            notes = []
            if len(openers) > 1:
                inner = openers[-1]
                inner_line = text.count("\n", 0, inner) + 1
                inner_col = inner - (text.rfind("\n", 0, inner) + 1) + 1
                notes.append(f"the comment nested in it at {inner_line}:{inner_col} "
                             "is not closed either")
            raise error("P003", "unterminated comment: no '*)' closes this '(*'",
                        Span(filename, line, col, line, col + 2),
                        "comments nest: every '(*' inside a comment needs its own '*)'", notes)
        if m.group() == "(*":
            openers.append(m.start())
        else:
            openers.pop()
        pos = m.end()
    return pos


def _bad_char(text: str, pos: int, line: int, col: int, filename: str) -> PrivInferError:
    ch = text[pos]
    if ch.isprintable() and ch != " " and not unicodedata.category(ch).startswith("Z"):
        shown = f"'{ch}'" if ch.isascii() else f"'{ch}' (U+{ord(ch):04X})"
    else:
        name = unicodedata.name(ch, "")
        shown = f"U+{ord(ch):04X}" + (f" ({name.lower()})" if name else "")
    hint: Optional[str] = _CHAR_HINTS.get(ch)
    if ch == "!" and text.startswith("!=", pos):
        hint = "inequality is written '<>'"
    return error("P002", f"unexpected character {shown}",
                 Span(filename, line, col, line, col + 1), hint or None)
