"""Spec selection by name fragment or glob."""

from __future__ import annotations

import pytest

from astest_tasks.config.discovery import Spec
from astest_tasks.config.selection import select_specs, split_selectors
from astest_tasks.core.errors import UserError

SPECS = [
    Spec("assembly/__tests__/math.spec.ts", "math"),
    Spec("assembly/__tests__/nested/array.spec.ts", "nested/array"),
    Spec("assembly/__tests__/nested/math_extra.spec.ts", "nested/math_extra"),
    Spec("assembly/__tests__/text.spec.ts", "text"),
]


def ids(selectors: list[str]) -> list[str]:
    return [spec.spec_id for spec in select_specs(SPECS, selectors, "wasi")]


def test_no_selector_keeps_every_spec() -> None:
    assert ids([]) == ["math", "nested/array", "nested/math_extra", "text"]


@pytest.mark.parametrize(
    ("selectors", "expected"),
    [
        (["math"], ["math", "nested/math_extra"]),
        (["math.spec.ts"], ["math", "nested/math_extra"]),
        (["nested/"], ["nested/array", "nested/math_extra"]),
        (["assembly/__tests__/nested/*"], ["nested/array", "nested/math_extra"]),
        (["t*t"], ["text"]),
        (["text", "array"], ["nested/array", "text"]),
    ],
)
def test_fragments_and_globs(selectors: list[str], expected: list[str]) -> None:
    assert ids(selectors) == expected


def test_selectors_are_comma_separated() -> None:
    assert split_selectors(" math, ,text ") == ["math", "text"]


def test_no_match_is_an_error_with_the_closest_names() -> None:
    with pytest.raises(UserError, match=r"no spec of mode 'wasi' matches --spec txet.*closest"):
        select_specs(SPECS, ["txet"], "wasi")


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("assembly/__tests__/math.spec.ts", ["math"]),
        ("./assembly/__tests__/math.spec.ts", ["math"]),
        ("__tests__/nested/array", ["nested/array"]),
        ("nested/", ["nested/array", "nested/math_extra"]),
        ("./assembly/__tests__/nested/", ["nested/array", "nested/math_extra"]),
    ],
)
def test_a_selector_written_as_a_path_names_that_spec_or_folder(
    selector: str, expected: list[str]
) -> None:
    assert [s.spec_id for s in select_specs(SPECS, [selector], "wasi")] == expected


def test_a_path_selector_matches_specs_found_through_a_dot_slash_input_pattern() -> None:
    # as-test projects often write "input": ["./assembly/__tests__/*.spec.ts"]
    dotted = [Spec("./assembly/__tests__/string.spec.ts", "string")]
    chosen = select_specs(dotted, ["assembly/__tests__/string.spec.ts"], "naive")
    assert [s.spec_id for s in chosen] == ["string"]


def test_a_selector_names_an_encoded_id_in_either_spelling() -> None:
    specs = [Spec("assembly/__tests__/a=b.spec.ts", "a%3Db"), Spec("x/c.spec.ts", "c")]
    assert select_specs(specs, ["a=b"], "wasi") == specs[:1]
    assert select_specs(specs, ["a%3Db"], "wasi") == specs[:1]
