"""Layering over the declarations: defaults, mode merging and per-mode folders."""

from __future__ import annotations

from astest_tasks.config import keys
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.layers import DEFAULTS, Layer, folders, merge_mode, resolve_base

NEW = AsTestRules.parse("1.8.0")


def layer(**values: object) -> Layer:
    made = Layer()
    for name, value in values.items():
        made.set(getattr(keys, name), value)
    return made


def test_an_unset_key_is_absent_and_none_never_sets_one() -> None:
    made = layer(TARGET="web", BROWSER=None)

    assert made.get(keys.TARGET) == "web"
    assert made.get(keys.BROWSER) is None


def test_the_base_config_takes_what_it_sets_and_the_defaults_for_the_rest() -> None:
    base = resolve_base(layer(TARGET="bindings", OUT_DIR="./out"))

    assert base[keys.TARGET] == "bindings"
    assert base[keys.OUT_DIR] == "./out"
    assert base[keys.LOGS] == DEFAULTS[keys.LOGS]
    assert base[keys.BUILD_ARGS] == ()


def test_a_mode_keeps_the_base_values_it_does_not_set() -> None:
    base = resolve_base(layer(TARGET="bindings", BUILD_CMD="npx asc"))

    merged = merge_mode(base, layer(BUILD_ARGS=("--debug",)), NEW)

    assert merged[keys.TARGET] == "bindings"
    assert merged[keys.BUILD_CMD] == "npx asc"
    assert merged[keys.BUILD_ARGS] == ("--debug",)


def test_the_base_config_is_mode_default_in_folders_of_its_own() -> None:
    base = resolve_base(layer(LOGS="none"))

    placed = folders(base, "default", base, None)

    assert placed[keys.OUT_DIR] == "./.as-test/build/default"
    assert placed[keys.CRASH_DIR] == "./.as-test/crashes/default"
    assert placed[keys.LOGS] == "none"  # switched off stays off
    assert placed[keys.SNAPSHOT_DIR] == "./.as-test/snapshots"  # not a per-mode folder


def test_a_mode_gets_subfolders_of_the_base_config_except_where_it_sets_its_own() -> None:
    base = resolve_base(layer(OUT_DIR="./out"))
    own = layer(COVERAGE_DIR="./cov-ci")

    placed = folders(merge_mode(base, own, NEW), "ci", base, own)

    assert placed[keys.OUT_DIR] == "./out/ci"
    assert placed[keys.COVERAGE_DIR] == "./cov-ci"
    assert placed[keys.LOGS] == "./.as-test/logs/ci"
    # crash records stay in the base config's folder; as-test puts the mode in the file name
    assert placed[keys.CRASH_DIR] == "./.as-test/crashes"
