"""The declaration table: every setting once, and ModeSettings built from it alone."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import cast

import pytest

from astest_tasks.config import keys
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.config_reader import CoverageSetting
from astest_tasks.config.project_config import ModeSettings, load_config
from astest_tasks.core.errors import ConfigError
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
    """Every JSON place a declaration names, modes' spelled as the base's (``modes.*.default``
    stays)."""
    return [place for entry in keys.DECLARATIONS for place in keys.places(entry)]


def _known(path: str) -> bool:
    """Whether the unknown-key warnings accept ``path``, object by object."""
    parts = path.split(".")
    for end in range(1, len(parts) + 1):
        parent, key = ".".join(parts[: end - 1]), parts[end - 1]
        if key == "*" or parent.endswith("*"):
            continue
        table = keys.FORMAT.known.get(
            parent.removeprefix("modes.*.") if parent != "modes.*" else parent
        )
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
    """A place the known keys lacked would be read and warned about at once."""
    unknown = [path for path in _declared_paths() if not _known(path)]
    assert not unknown, f"keys.FORMAT does not know these declared places: {unknown}"


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
        if not inside and plain not in keys.UNSUPPORTED and path != "modes":
            missing.append(path)
        assert _known(path) or path == "modes", f"{path} would be warned about as unknown"
    assert not missing, f"declare these in config/keys.py or name them in UNSUPPORTED: {missing}"


def test_the_unknown_key_check_sees_a_forgotten_key() -> None:
    assert _known("fuzz.runs") and _known("modes.*.buildOptions.args")
    assert not _known("fuzz.rnus") and not _known("buildOptions.target.x")


def test_every_declaration_is_listed_read_and_documented() -> None:
    """A declaration forgotten in DECLARATIONS or READ_ORDER, or without its docs line."""
    declared = set(keys.DECLARATIONS)
    assert len(declared) == len(keys.DECLARATIONS)
    readable = {entry for entry in keys.DECLARATIONS if isinstance(entry, keys.Key | keys.Check)}
    assert set(keys.READ_ORDER) == readable
    for entry in keys.DECLARATIONS:
        if not isinstance(entry, keys.Section):
            assert entry.doc is not None and entry.doc.text.strip(), f"{entry.at} has no docs line"
    module = {
        value
        for value in vars(keys).values()
        if isinstance(value, keys.Key | keys.Check | keys.Section | keys.Place)
    }
    assert module <= declared, (
        f"declared but not in DECLARATIONS: {[e.at for e in module - declared]}"
    )


def test_every_check_says_why_and_every_unsupported_key_is_accepted() -> None:
    checked = {
        place
        for entry in keys.DECLARATIONS
        if isinstance(entry, keys.Check)
        for place in keys.places(entry)
    }
    assert checked <= set(keys.UNSUPPORTED), "give each Check's place its reason in UNSUPPORTED"
    assert all(reason.strip() for reason in keys.UNSUPPORTED.values())
    unknown = [place for place in keys.UNSUPPORTED if not _known(place)]
    assert not unknown, f"UNSUPPORTED keys would be warned about as unknown: {unknown}"


# Places a check accepts whatever they hold: as-test's reporter object, removed in 1.7.0.
_UNCHECKED = ("runOptions.reporter.",)
_WRONG = -1.5  # of no declared key's type or range


def _checked_places() -> list[str]:
    return [
        place
        for entry in keys.READ_ORDER
        for place in keys.places(entry)
        if not place.startswith(_UNCHECKED)
    ]


def _config_with(place: str, value: object) -> dict[str, object]:
    config: dict[str, object] = {}
    node = config
    *parents, name = place.replace("*", "ci").split(".")
    for parent in parents:
        node = cast("dict[str, object]", node.setdefault(parent, {}))
    node[name] = value
    return config


@pytest.mark.parametrize("place", _checked_places())
def test_each_declared_place_is_read_by_its_reader(tmp_path: Path, place: str) -> None:
    """A declaration whose reader looks elsewhere (or nowhere) lets a wrong value through."""
    (tmp_path / "as-test.config.json").write_text(json.dumps(_config_with(place, _WRONG)))

    with pytest.raises(ConfigError) as raised:
        load_config(Path("as-test.config.json"), tmp_path, NEW)

    assert f"$.{place.replace('*', 'ci')}" in str(raised.value)
