from __future__ import annotations

import pytest

from astest_tasks.config.envfile import DotenvError, parse_dotenv


def test_skips_blank_lines_and_comments() -> None:
    text = "\n# a comment\n   # indented comment\n\nA=1\n"
    assert parse_dotenv(text) == {"A": "1"}


def test_strips_export_prefix_and_surrounding_whitespace() -> None:
    assert parse_dotenv("export  NAME = value \n  OTHER=x") == {"NAME": "value", "OTHER": "x"}


def test_splits_on_the_first_equals_sign() -> None:
    assert parse_dotenv("URL=a=b=c") == {"URL": "a=b=c"}


def test_empty_value_is_allowed() -> None:
    assert parse_dotenv("EMPTY=") == {"EMPTY": ""}


def test_double_quotes_are_stripped_and_unescaped() -> None:
    text = r'MSG="line1\nline2\ttab \"quoted\" back\\slash \r"'
    assert parse_dotenv(text) == {"MSG": 'line1\nline2\ttab "quoted" back\\slash \r'}


def test_escaped_backslash_before_n_stays_a_backslash() -> None:
    # A single unescaping pass: "\\n" is an escaped backslash followed by a plain "n".
    assert parse_dotenv(r'P="C:\\new"') == {"P": "C:\\new"}


def test_unknown_escapes_are_kept_verbatim() -> None:
    assert parse_dotenv(r'P="a\qb"') == {"P": r"a\qb"}


def test_single_quotes_are_stripped_without_unescaping() -> None:
    assert parse_dotenv(r"RAW='a\nb'") == {"RAW": r"a\nb"}


def test_mismatched_or_lone_quotes_are_kept() -> None:
    assert parse_dotenv("A=\"x'\nB=\"\nC='y") == {"A": "\"x'", "B": '"', "C": "'y"}


def test_hash_after_a_value_is_part_of_the_value() -> None:
    assert parse_dotenv("A=1 # not a comment") == {"A": "1 # not a comment"}


def test_crlf_line_endings_and_later_lines_win() -> None:
    assert parse_dotenv("A=1\r\nB=2\r\nA=3\r\n") == {"A": "3", "B": "2"}


@pytest.mark.parametrize(
    ("text", "line"),
    [("A=1\nJUSTAKEY\n", 2), ("\n\n=value", 3), ("export =x", 1)],
)
def test_lines_without_key_and_equals_report_their_line_number(text: str, line: int) -> None:
    with pytest.raises(DotenvError) as caught:
        parse_dotenv(text)
    assert caught.value.line_number == line
    assert "expected KEY=VALUE" in str(caught.value)
