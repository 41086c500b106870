"""feature_switches.py: --enable / --disable over the config's features, as as-test 1.8's CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.as_test_version import AsTestVersion
from astest_tasks.config.discovery import Spec
from astest_tasks.config.feature_switches import FeatureSwitches, combined_coverage
from astest_tasks.config.project_config import ModeSettings, load_config
from astest_tasks.config.toolchain import Package, Toolchain
from astest_tasks.core.errors import UserError
from astest_tasks.plan.cache_keys import build_key

RULES_1_0 = AsTestRules.for_version(AsTestVersion.parse("1.0.7"))
RULES_1_8 = AsTestRules.for_version(AsTestVersion.parse("1.8.0"))


def _mode(tmp_path: Path, features: list[str]) -> ModeSettings:
    config = {"features": features, "buildOptions": {"target": "wasi"}}
    (tmp_path / "as-test.config.json").write_text(json.dumps(config))
    return load_config(Path("as-test.config.json"), tmp_path, RULES_1_8).base


def test_names_are_normalised_as_as_test_does_and_coverage_is_set_apart() -> None:
    switches = FeatureSwitches.parse(" SIMD , try_as,coverage,simd", "threads, ")
    assert switches.enable == ("simd", "try-as")
    assert switches.disable == ("threads",)
    assert switches.coverage is True
    assert FeatureSwitches.parse("", "coverage").coverage is False
    assert FeatureSwitches.parse("", "") == FeatureSwitches()


def test_enable_adds_after_the_configs_and_disable_removes(tmp_path: Path) -> None:
    mode = _mode(tmp_path, ["simd", "try-as"])
    changed = FeatureSwitches.parse("threads", "try-as").apply(mode)
    assert changed.features == ("simd", "threads")
    assert FeatureSwitches.parse("", "").apply(mode) is mode
    # Switching on what the config already has changes nothing.
    assert FeatureSwitches.parse("simd", "").apply(mode).features == mode.features


def test_a_switched_feature_changes_the_build_key(tmp_path: Path) -> None:
    mode = _mode(tmp_path, [])
    spec = Spec(path="assembly/__tests__/math.spec.ts", spec_id="math")
    package = Package("x", tmp_path, "1.0.0")
    toolchain = Toolchain(node="node", assemblyscript=package, as_test=package, wasi_shim=None)
    plain = build_key(mode, spec, toolchain)
    simd = build_key(FeatureSwitches.parse("simd", "").apply(mode), spec, toolchain)
    assert plain["features"] == [] and simd["features"] == ["simd"]


def test_the_same_name_in_both_lists_is_refused() -> None:
    with pytest.raises(UserError, match=r"both name 'simd'; fix: keep it in one of"):
        FeatureSwitches.parse("simd", "SIMD")


def test_a_list_of_only_commas_names_no_feature() -> None:
    with pytest.raises(UserError, match=r"--enable / ASTEST_ENABLE: ',,' names no feature; fix:"):
        FeatureSwitches.parse(",,", "")


def test_features_under_an_as_test_without_them_name_the_config_fix() -> None:
    with pytest.raises(UserError) as caught:
        FeatureSwitches.parse("simd", "").check_supported(RULES_1_0)
    message = str(caught.value)
    assert message.startswith("--enable simd: as-test 1.0.7 has no features (they came in 1.3.0)")
    assert '"buildOptions": { "args": ["--enable", "simd"] }' in message
    with pytest.raises(UserError, match=r"^--disable try-as: as-test 1.0.7"):
        FeatureSwitches.parse("", "try-as").check_supported(RULES_1_0)
    # coverage is a switch every version has; 1.8 takes any name.
    FeatureSwitches.parse("coverage", "").check_supported(RULES_1_0)
    FeatureSwitches.parse("simd", "try-as").check_supported(RULES_1_8)


@pytest.mark.parametrize(
    ("switch", "enable", "disable", "show", "expected"),
    [
        (None, "", "", False, None),
        (None, "coverage", "", False, True),
        (None, "", "coverage", False, False),
        (True, "", "", False, True),
        (True, "coverage", "", False, True),
        (None, "", "", True, True),  # --show-coverage turns it on ...
        (None, "", "coverage", True, False),  # ... unless it is switched off
        (False, "", "", True, False),
    ],
)
def test_coverage_from_every_switch(
    switch: bool | None, enable: str, disable: str, show: bool, expected: bool | None
) -> None:
    features = FeatureSwitches.parse(enable, disable)
    assert combined_coverage(switch, features, show_coverage=show) is expected


def test_disagreeing_coverage_switches_are_refused() -> None:
    with pytest.raises(UserError, match=r"--coverage off and --enable coverage disagree; fix:"):
        combined_coverage(False, FeatureSwitches.parse("coverage", ""), show_coverage=False)
