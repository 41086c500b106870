"""The declaration table: every setting once, and ModeSettings built from it alone."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from astest_tasks.config import keys
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.config_reader import KNOWN_KEYS, CoverageSetting
from astest_tasks.config.project_config import ModeSettings, load_config
from tests.integration.toolchains import AS_TEST_1_8, ensure_installed

# Fields that combine several keys or the mode's name rather than copy one key.
_COMBINED = {"name", "build_env", "run_env"}
OLD = AsTestRules.parse("1.0.7")
MIDDLE = AsTestRules.parse("1.0.14")
NEW = AsTestRules.parse("1.8.0")


def test_every_key_is_read_once_in_the_declared_order() -> None:
    read = [entry for entry in keys.READ_ORDER if isinstance(entry, keys.Key)]

    assert read == list(keys.KEYS)
    assert len(set(keys.KEYS)) == len(keys.KEYS)


def test_every_key_reaches_mode_settings_and_every_plain_field_names_its_key() -> None:
    named = {setting.name: setting.metadata.get("key") for setting in fields(ModeSettings)}
    plain = {name for name, key in named.items() if key is not None}

    assert plain == {setting.name for setting in fields(ModeSettings)} - _COMBINED
    # ENV, BUILD_ENV and RUN_ENV reach build_env/run_env through _settings; every other key is
    # copied by a field, so a declared key cannot be forgotten.
    copied = set(named.values()) | {keys.BUILD_ENV, keys.RUN_ENV}
    assert set(keys.KEYS) <= copied


def test_the_defaults_are_what_a_project_without_config_runs_with(tmp_path: Path) -> None:
    base = load_config(Path("as-test.config.json"), tmp_path, NEW).base

    assert base.input_patterns == keys.INPUT.default
    assert base.target == keys.TARGET.default
    assert base.out_dir == ".as-test/build/default"  # the default plus the base's mode folder
    assert base.crash_dir == ".as-test/crashes/default"
    assert base.snapshot_dir == ".as-test/snapshots"  # shared by every mode, never suffixed
    assert base.asconfig is None  # "none" switches it off


def test_mode_args_append_before_1_0_14_and_replace_from_then_on() -> None:
    assert keys.args_of_mode(("-O",), ("--debug",), OLD) == ("-O", "--debug")
    assert keys.args_of_mode(("-O",), ("--debug",), MIDDLE) == ("--debug",)


def test_mode_env_maps_merge_key_by_key_before_1_0_16_and_replace_from_then_on() -> None:
    base, own = {"A": "1", "B": "1"}, {"B": "2"}

    assert keys.env_of_mode(base, own, MIDDLE) == {"A": "1", "B": "2"}
    assert keys.env_of_mode(base, own, NEW) == {"B": "2"}


def test_an_empty_mode_runtime_keeps_the_base_one_only_before_1_0_14() -> None:
    assert keys.runtime_of_mode("node run.js", "", OLD) == "node run.js"
    assert keys.runtime_of_mode("node run.js", "", NEW) == ""
    assert keys.runtime_of_mode("node run.js", "wasmtime", OLD) == "wasmtime"


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        # 1.0.7: the mode's object replaces, "enabled" false unless it says otherwise
        (OLD, CoverageSetting(is_object=True, enabled=False, include=("mode/**",))),
        # 1.0.14, 1.0.15: the mode's object replaces as written
        (MIDDLE, CoverageSetting(is_object=True, enabled=None, include=("mode/**",))),
        # 1.0.16 on: key by key, so the base's exclude and enabled stay
        (
            NEW,
            CoverageSetting(
                is_object=True, enabled=True, include=("mode/**",), exclude=("base/skip/**",)
            ),
        ),
    ],
)
def test_a_mode_coverage_object_merges_as_each_release_does(
    rules: AsTestRules, expected: CoverageSetting
) -> None:
    base = CoverageSetting(
        is_object=True, enabled=True, include=("base/**",), exclude=("base/skip/**",)
    )
    own = CoverageSetting(is_object=True, enabled=None, include=("mode/**",))

    assert keys.coverage_of_mode(base, own, rules) == expected


def test_a_mode_coverage_boolean_replaces_the_base_object() -> None:
    base = CoverageSetting(is_object=True, enabled=True, include=("base/**",))
    own = CoverageSetting(is_object=False, enabled=False)

    assert keys.coverage_of_mode(base, own, NEW) == own


SCHEMA_18 = AS_TEST_1_8.node_modules / "as-test" / "as-test.config.schema.json"


def _declared_paths() -> list[str]:
    """Every JSON place a Key reads, modes' spelled as the base's (``modes.*.default`` stays)."""
    return [path.strip() for key in keys.KEYS for path in key.json.split("|")]


def _known(path: str) -> bool:
    """Whether the unknown-key warnings accept ``path``, object by object."""
    parts = path.split(".")
    for end in range(1, len(parts) + 1):
        parent, key = ".".join(parts[: end - 1]), parts[end - 1]
        if key == "*" or parent.endswith("*"):
            continue
        table = KNOWN_KEYS.get(parent.removeprefix("modes.*.") if parent != "modes.*" else parent)
        if table is None or key not in table:
            return False
    return True


def _schema_paths(node: object, path: str = "") -> list[str]:
    if not isinstance(node, dict):
        return []
    found = []
    for name, child in node.get("properties", {}).items():
        found += [path + name, *_schema_paths(child, f"{path}{name}.")]
    if isinstance(node.get("additionalProperties"), dict):
        found += _schema_paths(node["additionalProperties"], f"{path}*.")
    for alternative in [*node.get("oneOf", []), *node.get("anyOf", [])]:
        found += _schema_paths(alternative, path)
    return found


def test_every_declared_key_is_known_to_the_unknown_key_warnings() -> None:
    """A Key whose place is missing from KNOWN_KEYS would be read and warned about at once."""
    unknown = [path for path in _declared_paths() if not _known(path)]
    assert not unknown, f"add these to KNOWN_KEYS in config_reader.py: {unknown}"


def test_every_key_of_as_tests_schema_is_declared_or_named_with_a_reason() -> None:
    ensure_installed(AS_TEST_1_8)  # the installed 1.8's own schema, as the integration tests use
    schema = json.loads(SCHEMA_18.read_text(encoding="utf-8"))
    declared = _declared_paths()
    missing = []
    for path in sorted(set(_schema_paths(schema))):
        plain = path.removeprefix("modes.*.")
        inside = any(
            place == d or place.startswith(f"{d}.") or d.startswith(f"{place}.")
            for d in declared
            for place in (path, plain)
        )
        if not inside and plain not in keys.VALIDATED_ONLY and path != "modes":
            missing.append(path)
        assert _known(path) or path == "modes", f"{path} would be warned about as unknown"
    assert not missing, f"declare these in config/keys.py or name them in VALIDATED_ONLY: {missing}"


def test_the_unknown_key_check_sees_a_forgotten_key() -> None:
    assert _known("fuzz.runs") and _known("modes.*.buildOptions.args")
    assert not _known("fuzz.rnus") and not _known("buildOptions.target.x")
