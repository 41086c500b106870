"""The two rules for "!" patterns: the glob package's ignore (base input) and minimatch with
matchBase (a mode's own patterns). Each expectation here was read off the real npm packages that
as-test 1.8 installs; tests/integration/test_input_exclusions.py checks a wider table against
them on every run."""

from __future__ import annotations

import pytest

from astest_tasks.config.input_exclusions import (
    exclusions_of,
    glob_ignores,
    includes_of,
    minimatch_excludes,
    mode_only_exclusions,
)

SPEC = "assembly/__tests__/03-c.spec.ts"
NESTED = "assembly/__tests__/sub/04-d.spec.ts"
ABSOLUTE = "/work/project/" + SPEC


def ignored(path: str, pattern: str) -> bool:
    return glob_ignores(path, "/work/project/" + path, pattern)


@pytest.mark.parametrize(
    ("pattern", "excluded"),
    [
        ("!**/03-*", True),
        ("!03-*", False),  # no match-base: names a file at the project root only
        ("!assembly/__tests__/03-c.spec.ts", True),
        ("!./assembly/__tests__/03-c.spec.ts", True),  # glob drops the leading ./
        ("!**/03-C*", False),  # case-sensitive on Linux
        ("!**/03-c.spec.ts/", True),  # glob also tries the path with a slash after it
        ("!**/{01,03}-*", True),
        ("!**/+(01|03)-*", True),  # extglobs are on
        ("!!**/03-*", False),  # no negation: a literal "!" that no path starts with
        ("!" + ABSOLUTE, True),  # an absolute pattern is held against the absolute path
        ("!", False),
    ],
)
def test_the_base_inputs_rule_is_globs_ignore(pattern: str, excluded: bool) -> None:
    assert ignored(SPEC, pattern) is excluded


def test_a_folder_pattern_ignores_its_files_only_with_a_globstar_after_it() -> None:
    assert not ignored(NESTED, "!assembly/__tests__/sub")
    assert not ignored(NESTED, "!**/sub")
    assert ignored(NESTED, "!assembly/__tests__/sub/**")
    assert ignored(NESTED, "!**/sub/**")


@pytest.mark.parametrize(
    ("pattern", "excluded"),
    [
        ("!03-*", True),  # matchBase: a slashless pattern matches the name in any folder
        ("!**/03-*", True),
        ("!./assembly/__tests__/03-c.spec.ts", False),  # minimatch keeps the ./
        ("!*.spec.ts", True),
        ("!sub/*", False),
        ("!!**/03-*", False),  # negated: excludes every spec but this one
        ("!#03-*", False),  # a comment
        ("!", False),
        ("!!", True),  # the negation of an empty pattern
    ],
)
def test_a_modes_rule_is_minimatch_with_match_base(pattern: str, excluded: bool) -> None:
    assert minimatch_excludes(SPEC, pattern) is excluded


def test_a_negated_mode_pattern_excludes_the_other_specs() -> None:
    assert minimatch_excludes(NESTED, "!!**/03-*")


def test_only_a_modes_own_exclusions_count_as_the_modes() -> None:
    base = ["./a/*.spec.ts", "!**/x-*"]
    mode = ["./a/*.spec.ts", "!**/x-*", "!y-*"]
    assert includes_of(mode) == ("./a/*.spec.ts",)
    assert exclusions_of(mode) == ("!**/x-*", "!y-*")
    assert mode_only_exclusions(base, mode) == ("!y-*",)
    assert mode_only_exclusions(base, base) == ()
