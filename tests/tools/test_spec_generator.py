"""spec_generator.py: the same seed gives the same specs, and every feature turns up."""

from __future__ import annotations

from tests.tools.spec_generator import all_matchers, generate_spec

FEATURES = {
    "passing matcher",
    "failing matcher",
    "x-skip",
    "xdescribe",
    "todo",
    "only",
    "log",
    "odd name",
    "crash",
    "abort",
}


def test_a_seed_gives_the_same_specs_and_another_seed_others() -> None:
    assert generate_spec(5, 3) == generate_spec(5, 3)
    assert generate_spec(5, 3)[0] != generate_spec(6, 3)[0]
    assert generate_spec(5, 3)[0] != generate_spec(5, 4)[0]


def test_every_feature_is_reachable_within_a_few_hundred_specs() -> None:
    seen: set[str] = set()
    for index in range(400):
        source, plan = generate_spec(2026, index)
        seen |= plan.features
        assert source.startswith("import { describe, expect")
        assert source.count("(") == source.count(")"), source
    assert seen == FEATURES


def test_every_matcher_is_written_within_a_few_hundred_specs() -> None:
    seen: set[str] = set()
    for index in range(400):
        seen |= generate_spec(2026, index)[1].matchers
    assert seen == all_matchers()
    assert {"toStrictEqual", "toEqual", "toMatch", "toBeFinite", "not.toContain"} <= seen
