"""js_values.py: JavaScript's conversions, checked against references and Node's own output."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astest_tasks.core.js_values import (
    fixed2,
    js_json,
    js_layout,
    js_number,
    js_number_text,
    js_string,
    js_trim,
    shortest_digits,
)


def _decimal_shortest_digits(number: float) -> tuple[str, int]:
    """The Decimal-based implementation this one replaced: the reference for the property."""
    from decimal import Decimal

    exact = Decimal(repr(number)).as_tuple()
    assert isinstance(exact.exponent, int)
    all_digits = "".join(str(d) for d in exact.digits)
    digits = all_digits.rstrip("0")
    return digits, exact.exponent + len(all_digits) - len(digits) + len(digits)


@settings(max_examples=3000)
@given(st.floats(min_value=0.0, exclude_min=True, allow_infinity=False, allow_nan=False))
def test_shortest_digits_match_the_decimal_reference(number: float) -> None:
    assert shortest_digits(number) == _decimal_shortest_digits(number)


@settings(max_examples=3000)
@given(
    st.floats(allow_nan=False)
    | st.integers(min_value=-(2**60), max_value=2**60).map(float)
    | st.sampled_from([2.0**53 - 1, 2.0**53, 2.0**53 + 2, 1e21, 1e-7, 1e-6, 5e-324, -0.0])
)
def test_js_number_text_keeps_javascripts_layout(number: float) -> None:
    digits, point = (
        _decimal_shortest_digits(abs(number)) if number and math.isfinite(number) else ("", 0)
    )
    text = js_number_text(number)
    if not number or not math.isfinite(number):
        assert text in {"0", "Infinity", "-Infinity"}
        return
    sign = "-" if number < 0 else ""
    size = len(digits)
    if size <= point <= 21:
        expected = digits + "0" * (point - size)
    elif 0 < point <= 21:
        expected = f"{digits[:point]}.{digits[point:]}"
    elif -6 < point <= 0:
        expected = "0." + "0" * -point + digits
    else:
        mantissa = digits if size == 1 else f"{digits[0]}.{digits[1:]}"
        exponent = point - 1
        expected = f"{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"
    assert text == sign + expected
    assert float(text) == number


@given(st.floats(min_value=5e-324, allow_infinity=False))
@settings(max_examples=1000)
def test_number_text_of_any_double_is_javascripts_layout(number: float) -> None:
    if number.is_integer() and number < 2**53:
        assert js_number_text(number) == str(int(number))
    else:
        assert js_number_text(number) == js_layout(number)
        assert js_number_text(-number) == "-" + js_layout(number)


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (0.001, "0.001"),
        (1e-7, "1e-7"),
        (1.5e-5, "0.000015"),
        (1e21, "1e+21"),
        (2.5, "2.5"),
        (9007199254740992.0, "9007199254740992"),
        (1e16, "10000000000000000"),
    ],
)
def test_number_text_matches_javascript_examples(number: float, text: str) -> None:
    assert js_number_text(number) == text


def test_string_and_number_follow_javascript_for_json_values() -> None:
    assert [js_string(v) for v in (None, True, 3.0, 2**60, [1, None, "a"], {"k": 1})] == [
        "null",
        "true",
        "3",
        "1152921504606847000",  # JavaScript's digits, not Python's exact integer
        "1,,a",
        "[object Object]",
    ]
    assert js_number(" 0x1F ") == 31 and js_number("") == 0 and math.isnan(js_number("1e"))
    assert js_json({"b": 1, "2": [True, None], "1": 0.5}) == '{"1":0.5,"2":[true,null],"b":1}'
    assert js_trim("\ufeff\u00a0 key \u3000") == "key"


def test_an_integer_past_any_double_is_infinity_as_in_javascript() -> None:
    # JSON holds integers of any size, and a spec's report is untrusted.
    assert js_string(10**400) == "Infinity" and js_string(-(10**400)) == "-Infinity"
    assert js_json([10**400, -(10**400)]) == "[null,null]"  # JSON.stringify's answer


def test_two_decimals_round_exact_halves_up_like_to_fixed() -> None:
    assert fixed2(12.125) == "12.13"
    assert fixed2(100 / 3) == "33.33"
