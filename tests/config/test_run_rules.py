"""RunRules: which run-side rule each as-test release brought in."""

from __future__ import annotations

import pytest

from astest_tasks.config.as_test import AsTest
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.as_test_version import NEWEST_TESTED, AsTestVersion
from astest_tasks.config.run_rules import RunRules


def test_1_0_7_follows_none_of_the_later_rules() -> None:
    rules = RunRules.for_version(AsTestVersion.parse("1.0.7"))
    assert not any(
        (
            rules.snapshot_prefix_normalized,
            rules.snapshot_input_layout,
            rules.every_block_is_suite,
            rules.events_rebuild_report,
            rules.empty_file_skips,
        )
    )


def test_1_8_0_follows_all_of_them() -> None:
    rules = RunRules.for_version(AsTestVersion.parse("1.8.0"))
    assert rules.snapshot_prefix_normalized and rules.snapshot_input_layout
    assert rules.every_block_is_suite and rules.events_rebuild_report and rules.empty_file_skips


@pytest.mark.parametrize(
    ("version", "flags"),
    [
        ("1.1.5", (False, False, False, False, False)),
        ("1.1.6", (True, False, False, False, False)),
        ("1.2.0", (True, True, False, False, False)),
        ("1.3.9", (True, True, False, False, False)),
        ("1.4.0", (True, True, True, False, False)),
        ("1.5.1", (True, True, True, True, False)),
        ("1.5.3", (True, True, True, True, True)),
        ("1.10.0-rc.1", (True, True, True, True, True)),
    ],
)
def test_each_rule_starts_at_its_release(
    version: str, flags: tuple[bool, bool, bool, bool, bool]
) -> None:
    rules = RunRules.for_version(AsTestVersion.parse(version))
    assert (
        rules.snapshot_prefix_normalized,
        rules.snapshot_input_layout,
        rules.every_block_is_suite,
        rules.events_rebuild_report,
        rules.empty_file_skips,
    ) == flags


def test_no_version_means_the_newest_tested_rules_as_for_the_config() -> None:
    """One rule for a project without as-test installed, for the config and the run alike
    (they disagreed: the config took the newest tested, the run the oldest)."""
    newest = AsTestVersion.parse(NEWEST_TESTED)
    assert RunRules.for_version(None) == RunRules.for_version(newest)
    assert AsTestRules.for_version(None) == AsTestRules.for_version(newest)
    none_installed, installed = AsTest.parse(""), AsTest.of(newest)
    assert none_installed.version == "" and installed.version == NEWEST_TESTED
    assert (none_installed.config, none_installed.run) == (installed.config, installed.run)
