"""JavaScript's conversions, for values ``json.loads`` produced: ``String(v)``, ``Number(v)``,
``Number.prototype.toString()``, ``JSON.stringify`` and ``String.prototype.trim``.

as-test's CLI runs in Node, so whatever it prints or stores from a guest's JSON went through these;
the report reader, the snapshot keys and the coverage point guesses all need the same answers.
One module, so that they cannot drift apart.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from astest_tasks.core.lazy_pattern import LazyPattern

# StrWhiteSpaceChar: what String.prototype.trim and Number(string) strip.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_DECIMAL = LazyPattern(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_JS_RADIX_PREFIXES = {"0x": 16, "0o": 8, "0b": 2}
_JS_RADIX_DIGITS = {16: "0123456789abcdef", 8: "01234567", 2: "01"}
_JS_ARRAY_INDEX = LazyPattern(r"0|[1-9][0-9]*")
_LONE_SURROGATE = LazyPattern("[\ud800-\udfff]")


def js_string(value: object) -> str:
    """``String(value)`` for a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_text(to_double(value))
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        # Array.prototype.join writes null elements as empty strings.
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"


def js_number(value: object) -> float:
    """``Number(value)`` for a JSON value (not null: the CLI applies ``?? 0`` first)."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return to_double(value)
    if isinstance(value, str):
        return js_string_to_number(value)
    if isinstance(value, list):
        return js_string_to_number(js_string(value))
    return math.nan


def js_string_to_number(text: str) -> float:
    text = text.strip(JS_WHITESPACE)
    if not text:
        return 0.0
    if text in ("Infinity", "+Infinity"):
        return math.inf
    if text == "-Infinity":
        return -math.inf
    if _JS_DECIMAL.fullmatch(text):
        return float(text)
    base = _JS_RADIX_PREFIXES.get(text[:2].lower())
    digits = text[2:].lower()
    if base is not None and digits and all(c in _JS_RADIX_DIGITS[base] for c in digits):
        return to_double(int(digits, base))
    return math.nan


def to_double(value: int | float) -> float:
    # JavaScript numbers are doubles; an integer too large for one is Infinity there.
    try:
        return float(value)
    except OverflowError:
        # not copysign(inf, value): it converts value to a float first, and overflows again
        return math.inf if value > 0 else -math.inf


_EXACT_INTEGERS = float(2**53)


def js_number_text(number: float) -> str:
    """``Number.prototype.toString()``: shortest round-trip digits, JavaScript's layout."""
    if math.isnan(number):
        return "NaN"
    if number == 0:
        return "0"
    if number < 0:
        return "-" + js_number_text(-number)
    if math.isinf(number):
        return "Infinity"
    if number < _EXACT_INTEGERS and number.is_integer():
        return str(int(number))  # every digit of an integer below 2**53 is needed to round-trip
    if not number.is_integer():
        text = repr(number)
        if "e" not in text:
            # repr writes shortest round-trip digits, as JavaScript does, and without an exponent
            # only from 1e-4 to 1e16, inside JavaScript's own plain range (1e-7 to 1e21).
            return text
    return js_layout(number)


def js_layout(number: float) -> str:
    """JavaScript's layout of a positive, finite ``number``'s shortest digits."""
    digits, point = shortest_digits(number)
    size = len(digits)
    if size <= point <= 21:
        return digits + "0" * (point - size)
    if 0 < point <= 21:
        return f"{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return "0." + "0" * -point + digits
    mantissa = digits if size == 1 else f"{digits[0]}.{digits[1:]}"
    exponent = point - 1
    return f"{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def shortest_digits(number: float) -> tuple[str, int]:
    """Digits ``d`` and point position ``n`` with ``number == 0.d * 10**n`` (``number`` > 0).

    ``repr`` already gives the shortest digits that round-trip, which is what JavaScript uses;
    only its layout (``1e+16``, ``1.5e-07``, ``0.001``, ``12.0``) is taken apart here.
    """
    mantissa, _, exponent = repr(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    all_digits = whole + fraction
    significant = all_digits.lstrip("0")
    point = len(whole) + (int(exponent) if exponent else 0) - (len(all_digits) - len(significant))
    return significant.rstrip("0"), point


def js_json(value: object) -> str:
    """``JSON.stringify(value)`` for a JSON value (compact, JavaScript number and key order)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        number = to_double(value)
        return js_number_text(number) if math.isfinite(number) else "null"
    if isinstance(value, str):
        return js_json_string(value)
    if isinstance(value, list):
        return "[" + ",".join(js_json(item) for item in value) + "]"
    if isinstance(value, dict):
        members = (f"{js_json_string(key)}:{js_json(value[key])}" for key in js_key_order(value))
        return "{" + ",".join(members) + "}"
    return "null"


def js_json_string(text: str) -> str:
    # json.dumps(text, ensure_ascii=False) without its per-call encoder: the same C function.
    quoted: str = _encode_json_string(text)
    if text.isascii():
        return quoted
    # JSON.stringify escapes lone surrogates; json.dumps(ensure_ascii=False) passes them through.
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", quoted)


_encode_json_string = json.encoder.encode_basestring


def js_key_order(obj: Mapping[str, object]) -> list[str]:
    """JavaScript property order: array-index keys ascending first, then the rest as inserted."""
    index_keys = [key for key in obj if _is_js_array_index(key)]
    other_keys = [key for key in obj if not _is_js_array_index(key)]
    return sorted(index_keys, key=int) + other_keys


def _is_js_array_index(key: str) -> bool:
    # The length check keeps int() away from absurdly long digit strings (and its digit limit).
    return len(key) <= 10 and bool(_JS_ARRAY_INDEX.fullmatch(key)) and int(key) < 2**32 - 1


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_WHITESPACE)


def fixed2(value: float) -> str:
    """``Number.prototype.toFixed(2)``: the exact value rounded half up (Python's format rounds
    exact halves such as 12.125 to even)."""
    # Loaded here, not with the module: only a coverage figure needs it.
    from decimal import ROUND_HALF_UP, Decimal

    return str(Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
