"""The tokenizer and source reading: token kinds, values, spans and lexical errors."""
from fractions import Fraction

import pytest

from verifier.errors import PrivInferError
from verifier.language.lexer import tokenize
from verifier.language.source import read_source


def kinds(text):
    return [t.kind for t in tokenize(text)][:-1]


def texts(text):
    return [t.text for t in tokenize(text)][:-1]


def lex_error(text):
    with pytest.raises(PrivInferError) as info:
        tokenize(text, "t.pinf")
    return info.value


# ----------------------------------------------------------------------------- tokens


def test_keywords_identifiers_and_context_words():
    source = "let rec in fun if then else match with return mlet observe infer ran " \
             "true false not val forall exists"
    assert kinds(source) == source.split()
    assert kinds("DP SD HD KL M D Delta list real x' a_1 _b") == ["IDENT"] * 12
    assert kinds("_") == ["_"]


def test_unicode_identifiers():
    assert [(t.kind, t.text) for t in tokenize("ε1 + δ")][:-1] == [
        ("IDENT", "ε1"), ("+", "+"), ("IDENT", "δ")]


def test_symbols_longest_match():
    assert texts("a::b->c=>d<>e<=f>=g&&h||i/\\j\\/k==l*)") == [
        "a", "::", "b", "->", "c", "=>", "d", "<>", "e", "<=", "f", ">=", "g", "&&", "h",
        "||", "i", "/\\", "j", "\\/", "k", "==", "l", "*)"]
    assert texts("( ) [ ] { } , ; | : . = < > + - * / ~ ^") == \
        "( ) [ ] { } , ; | : . = < > + - * / ~ ^".split()


def test_run_variables_are_single_tokens():
    tokens = tokenize("x<1> y<2> z◁ w▷")[:-1]
    assert [(t.kind, t.value) for t in tokens] == [
        ("RUNVAR", ("x", 1)), ("RUNVAR", ("y", 2)), ("RUNVAR", ("z", 1)), ("RUNVAR", ("w", 2))]
    assert [t.text for t in tokens] == ["x<1>", "y<2>", "z◁", "w▷"]


def test_comparison_with_spaces_is_not_a_run_variable():
    assert kinds("a < 1") == ["IDENT", "<", "INT"]
    assert kinds("a <1 > b") == ["IDENT", "<", "INT", ">", "IDENT"]
    assert kinds("x<=1") == ["IDENT", "<=", "INT"]


@pytest.mark.parametrize("text, kind, value", [
    ("3", "INT", 3),
    ("0", "INT", 0),
    ("2.5", "REAL", Fraction(5, 2)),
    ("2.", "REAL", Fraction(2)),
    ("1e-8", "REAL", Fraction(1, 10 ** 8)),
    ("1.5e3", "REAL", Fraction(1500)),
    ("3E+2", "REAL", Fraction(300)),
    ("0.1", "REAL", Fraction(1, 10)),
    ("123456789012345678901234567890", "INT", 123456789012345678901234567890),
])
def test_numbers(text, kind, value):
    (token,) = tokenize(text)[:-1]
    assert (token.kind, token.value, token.text) == (kind, value, text)
    assert type(token.value) is type(value)


def test_spans_are_one_based_and_end_exclusive():
    tokens = tokenize("let x =\n  foo 12", "f.pinf")
    foo, twelve = tokens[3], tokens[4]
    assert (foo.span.line, foo.span.col, foo.span.end_line, foo.span.end_col) == (2, 3, 2, 6)
    assert (twelve.span.line, twelve.span.col, twelve.span.end_col) == (2, 7, 9)
    assert foo.span.file == "f.pinf"
    eof = tokens[-1]
    assert eof.kind == "EOF" and (eof.line, eof.col) == (2, 9)


def test_eof_of_empty_input():
    (eof,) = tokenize("")
    assert (eof.kind, eof.line, eof.col) == ("EOF", 1, 1)
    assert kinds("  \n (* only a comment *)\n") == []


def test_blanks_anywhere():
    assert texts("\t let  x\t=\t1 \t ") == ["let", "x", "=", "1"]
    assert texts("a \n\t \n  b  ") == ["a", "b"]
    assert kinds("   ") == []


def test_crlf_and_cr_line_ends():
    tokens = tokenize("a\r\nb\rc")
    assert [(t.text, t.line, t.col) for t in tokens[:-1]] == [("a", 1, 1), ("b", 2, 1), ("c", 3, 1)]


def test_nested_comments_are_skipped_and_lines_counted():
    tokens = tokenize("a (* one (* two\n *) still\n comment *) b")
    assert [(t.text, t.line) for t in tokens[:-1]] == [("a", 1), ("b", 3)]
    assert tokens[1].col == 13


def test_comment_directly_after_paren_and_tokens_after_it():
    assert texts("f ((* c *)x)") == ["f", "(", "x", ")"]


# ----------------------------------------------------------------------------- errors


def test_unterminated_comment_points_at_its_opening():
    exc = lex_error("let x = 1\n  (* open (* nested *)\n more")
    diag = exc.first
    assert diag.code == "P003"
    assert (diag.span.line, diag.span.col) == (2, 3)
    assert exc.source is not None and "let x" in exc.source


def test_unterminated_nested_comment_notes_the_inner_one():
    diag = lex_error("(* a\n (* b").first
    assert (diag.code, diag.span.line, diag.span.col) == ("P003", 1, 1)
    assert any("2:2" in note for note in diag.notes)


def test_unexpected_character_is_shown():
    diag = lex_error("let x = 1 $ 2").first
    assert diag.code == "P002"
    assert "'$'" in diag.message
    assert (diag.span.line, diag.span.col) == (1, 11)


def test_unexpected_character_hints():
    assert "<>" in lex_error("a != b").first.hint
    assert "&&" in lex_error("a & b").first.hint
    assert "U+00A0" in lex_error("a\u00a0b").first.message
    assert "U+000C" in lex_error("a\x0cb").first.message


def test_lone_triangle_is_an_error():
    assert lex_error("x ◁").first.code == "P002"


@pytest.mark.parametrize("text", ["1e", "3x", "2.5.3", "1.5e+", "12abc"])
def test_malformed_numbers(text):
    diag = lex_error(f"f {text}").first
    assert diag.code == "P004"
    assert diag.span.col == 3


def test_huge_literals_are_refused():
    assert lex_error("1e99999999").first.code == "P004"
    assert lex_error("1" * 5000).first.code == "P004"


def test_a_run_index_other_than_1_or_2_is_an_error():
    # ``x<3>`` can only be a mistyped run variable: as a comparison it compares a bool with >
    err = lex_error("adj (l<1>, l<3>)").first
    assert err.code == "P005" and "l<3>" in err.message and "l<1> and l<2>" in err.hint
    assert kinds("x < 3 > y") == ["IDENT", "<", "INT", ">", "IDENT"]


def test_keyword_cannot_be_run_indexed():
    assert lex_error("let<1>").first.code == "P005"


def test_long_list_lexes():
    tokens = tokenize("[" + "; ".join(str(i) for i in range(20_000)) + "]")
    assert len(tokens) == 40_002  # [, the numbers, the ';' between them, ], EOF
    assert tokens[-2].kind == "]"
    assert tokens[-3].value == 19_999


# ----------------------------------------------------------------------------- read_source


def source_error(path):
    with pytest.raises(PrivInferError) as info:
        read_source(path)
    return info.value


def test_read_source_normalises_line_ends_and_bom(tmp_path):
    path = tmp_path / "a.pinf"
    path.write_bytes(b"\xef\xbb\xbflet x = 1\r\nlet y = 2\r")
    assert read_source(path) == "let x = 1\nlet y = 2\n"


def test_read_source_missing_file(tmp_path):
    diag = source_error(tmp_path / "missing.pinf").first
    assert diag.code == "U001"
    assert "missing.pinf" in diag.message


def test_read_source_directory_is_unreadable(tmp_path):
    assert source_error(tmp_path).first.code == "U001"


def test_read_source_not_utf8_reports_position(tmp_path):
    path = tmp_path / "latin1.pinf"
    path.write_bytes("let x = 1\nlet é = 2\n".encode("latin-1"))
    exc = source_error(path)
    diag = exc.first
    assert diag.code == "P001"
    assert (diag.span.line, diag.span.col) == (2, 5)
    assert "0xe9" in diag.message
    assert exc.source is not None


def test_read_source_column_counts_characters_not_bytes(tmp_path):
    path = tmp_path / "mixed.pinf"
    path.write_bytes("(* ε *) ".encode() + b"\xff")
    assert source_error(path).first.span.col == 9


def test_read_source_nul_byte(tmp_path):
    path = tmp_path / "nul.pinf"
    path.write_bytes(b"let x = 1\nlet\x00 y")
    diag = source_error(path).first
    assert diag.code == "P001"
    assert (diag.span.line, diag.span.col) == (2, 4)
    assert "NUL" in diag.message


def test_read_source_binary_garbage(tmp_path):
    path = tmp_path / "garbage.pinf"
    path.write_bytes(bytes(range(256)) * 4)
    assert source_error(path).first.code == "P001"
