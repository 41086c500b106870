"""Which release brought each rule: the flags for the two tested ends and the boundaries between."""

from __future__ import annotations

import pytest

from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.as_test_version import NEWEST_TESTED


def test_as_test_1_0_7_follows_the_early_rules() -> None:
    rules = AsTestRules.parse("1.0.7")
    assert not rules.modes_are_full_configs
    assert not rules.mode_maps_replace
    assert not rules.mode_default_flag
    assert not rules.features
    assert not rules.transform_first
    assert rules.reporter


def test_as_test_1_8_0_follows_the_newest_rules() -> None:
    rules = AsTestRules.parse("1.8.0")
    assert rules.modes_are_full_configs and rules.mode_maps_replace and rules.mode_default_flag
    assert rules.features and rules.mode_name_env and rules.cache
    assert rules.transform_first and rules.bindings_raw_unless_declared
    assert not rules.base_runs_with_modes
    assert not rules.reporter


@pytest.mark.parametrize(
    ("version", "runs_base"),
    [("1.0.16", False), ("1.1.0", True), ("1.1.6", True), ("1.1.7", False)],
)
def test_only_1_1_0_to_1_1_6_run_the_base_config_beside_named_modes(
    version: str, runs_base: bool
) -> None:
    assert AsTestRules.parse(version).base_runs_with_modes is runs_base


def test_boundaries_are_inclusive() -> None:
    assert not AsTestRules.parse("1.0.13").modes_are_full_configs
    assert AsTestRules.parse("1.0.14").modes_are_full_configs
    assert not AsTestRules.parse("1.5.0").bindings_raw_unless_declared
    assert AsTestRules.parse("1.5.1").bindings_raw_unless_declared
    assert AsTestRules.parse("1.10.0").transform_first  # numeric, not string, comparison


def test_without_an_installed_as_test_the_newest_tested_rules_apply() -> None:
    assert AsTestRules.for_version(None) == AsTestRules.parse(NEWEST_TESTED)


@pytest.mark.parametrize(
    ("version", "typed"), [("1.0.7", False), ("1.1.2", False), ("1.1.3", True), ("1.8.0", True)]
)
def test_coverage_points_are_described_by_their_type_from_1_1_3(version: str, typed: bool) -> None:
    assert AsTestRules.parse(version).typed_coverage_points is typed
