from __future__ import annotations

import json
from pathlib import Path

import pytest

from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.project_config import (
    ModeSettings,
    ProjectConfig,
    load_config,
    select_modes,
    split_mode_names,
)
from astest_tasks.core.errors import ConfigError
from astest_tasks.coverage.rules import CoverageRules

CONFIG_NAME = "as-test.config.json"


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def load(root: Path, data: object, version: str | None = None) -> ProjectConfig:
    """The config under the rules of ``version``; None: no as-test installed (newest rules)."""
    write_json(root / CONFIG_NAME, data)
    rules = AsTestRules.parse(version) if version else None
    return load_config(Path(CONFIG_NAME), root, rules)


def load_error(root: Path, data: object, version: str | None = None) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load(root, data, version)
    return caught.value


# --- defaults ---------------------------------------------------------------------------------


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    config = load_config(Path(CONFIG_NAME), tmp_path)

    assert config.exists is False
    assert config.path == tmp_path / CONFIG_NAME
    assert config.modes == {}
    assert config.warnings == ()
    assert config.base == ModeSettings(
        name="default",
        target="wasi",
        input_patterns=("./assembly/__tests__/*.spec.ts",),
        out_dir=".as-test/build/default",
        logs_dir=".as-test/logs/default",
        coverage_dir=".as-test/coverage/default",
        snapshot_dir=".as-test/snapshots",
        crash_dir=".as-test/crashes/default",
        asconfig=None,
        build_args=(),
        build_cmd="",
        coverage_enabled=False,
        env={},
        build_env={"AS_TEST_COVERAGE_ENABLED": "0", "AS_TEST_MODE_NAME": "default"},
        run_env={},
        runtime_cmd="",
        browser="",
        is_default=True,
    )
    assert select_modes(config) == [config.base]


def test_empty_object_equals_defaults_but_exists(tmp_path: Path) -> None:
    config = load(tmp_path, {})

    assert config.exists is True
    assert config.base == load_config(Path("missing.json"), tmp_path).base


def test_config_path_is_made_absolute_against_the_project_root(tmp_path: Path) -> None:
    write_json(tmp_path / "cfg" / "custom.json", {"outDir": "out"})

    config = load_config(Path("cfg/custom.json"), tmp_path)

    assert config.path == tmp_path / "cfg" / "custom.json"
    assert config.path.is_absolute()
    assert config.base.out_dir == "out/default"


def test_input_accepts_a_single_string_and_keeps_order(tmp_path: Path) -> None:
    assert load(tmp_path, {"input": "a/*.spec.ts"}).base.input_patterns == ("a/*.spec.ts",)
    patterns = load(tmp_path, {"input": ["z/*.spec.ts", "a/*.spec.ts"]}).base.input_patterns
    assert patterns == ("z/*.spec.ts", "a/*.spec.ts")


def test_asconfig_none_and_path(tmp_path: Path) -> None:
    assert load(tmp_path, {"config": "none"}).base.asconfig is None
    assert load(tmp_path, {"config": "./asconfig.json"}).base.asconfig == "asconfig.json"


def test_absolute_paths_stay_absolute(tmp_path: Path) -> None:
    out = (tmp_path / "elsewhere").as_posix()

    assert load(tmp_path, {"outDir": out}).base.out_dir == f"{out}/default"


# --- output alias -----------------------------------------------------------------------------


def test_string_output_sets_all_four_directories(tmp_path: Path) -> None:
    base = load(tmp_path, {"output": "./.as-test/"}).base

    assert base.out_dir == ".as-test/build/default"
    assert base.logs_dir == ".as-test/logs/default"
    assert base.coverage_dir == ".as-test/coverage/default"
    assert base.snapshot_dir == ".as-test/snapshots"


def test_object_output_maps_each_key(tmp_path: Path) -> None:
    data = {"output": {"build": "b", "logs": "none", "coverage": "c", "snapshots": "s"}}

    base = load(tmp_path, data).base

    assert (base.out_dir, base.logs_dir, base.coverage_dir) == ("b/default", None, "c/default")
    assert base.snapshot_dir == "s"


def test_legacy_keys_win_over_output_alias(tmp_path: Path) -> None:
    data = {"output": "out", "outDir": "legacy-build", "snapshotDir": "legacy-snaps"}

    base = load(tmp_path, data).base

    assert base.out_dir == "legacy-build/default"
    assert base.snapshot_dir == "legacy-snaps"
    assert base.logs_dir == "out/logs/default"

    object_alias = load(tmp_path, {"output": {"logs": "alias-logs"}, "logs": "none"}).base
    assert object_alias.logs_dir is None


# --- modes: merging and directories ------------------------------------------------------------

MODES_CONFIG: dict[str, object] = {
    "output": ".as-test/",
    "env": {"SHARED": "base", "ONLY_BASE": "1"},
    "coverage": True,
    "buildOptions": {
        "target": "bindings",
        "args": ["--optimize"],
        "env": {"BUILD": "base"},
    },
    "runOptions": {"runtime": {"cmd": "wasmtime run <file>"}, "env": {"RUN": "base"}},
    "modes": {
        "node:wasi": {
            "buildOptions": {"target": "wasi"},
            "env": {"SHARED": "mode"},
        },
        "custom-dirs": {"outDir": "elsewhere", "logs": "none", "default": False},
    },
}


def test_mode_inherits_fields_it_does_not_set(tmp_path: Path) -> None:
    mode = load(tmp_path, MODES_CONFIG).modes["node:wasi"]

    assert mode.target == "wasi"
    assert mode.build_args == ("--optimize",)
    assert mode.runtime_cmd == "wasmtime run <file>"
    assert mode.coverage_enabled is True
    assert mode.run_env == {"RUN": "base", "SHARED": "mode"}
    assert mode.build_env == {
        "AS_TEST_COVERAGE_ENABLED": "1",
        "AS_TEST_MODE_NAME": "node:wasi",
        "BUILD": "base",
        "SHARED": "mode",
    }


def test_mode_env_replaces_base_env_instead_of_merging(tmp_path: Path) -> None:
    config = load(tmp_path, MODES_CONFIG)

    assert config.base.env == {"ONLY_BASE": "1", "SHARED": "base"}
    assert config.modes["node:wasi"].env == {"SHARED": "mode"}


def test_named_mode_directories_are_suffixed_with_the_mode_name(tmp_path: Path) -> None:
    config = load(tmp_path, MODES_CONFIG)
    base, mode = config.base, config.modes["node:wasi"]

    assert base.out_dir == ".as-test/build/default"
    assert mode.out_dir == ".as-test/build/node:wasi"
    assert mode.logs_dir == ".as-test/logs/node:wasi"
    assert mode.coverage_dir == ".as-test/coverage/node:wasi"
    # shared between the base config and every mode
    assert mode.snapshot_dir == base.snapshot_dir == ".as-test/snapshots"
    assert base.crash_dir == ".as-test/crashes/default"
    assert mode.crash_dir == ".as-test/crashes"


def test_directories_a_mode_sets_itself_are_not_suffixed(tmp_path: Path) -> None:
    mode = load(tmp_path, MODES_CONFIG).modes["custom-dirs"]

    assert mode.out_dir == "elsewhere"
    assert mode.logs_dir is None
    assert mode.coverage_dir == ".as-test/coverage/custom-dirs"


def test_mode_output_alias_counts_as_setting_the_directories(tmp_path: Path) -> None:
    data = {"modes": {"a": {"output": {"build": "a-build"}}, "b": {"output": "b-out"}}}

    modes = load(tmp_path, data).modes

    assert modes["a"].out_dir == "a-build"
    assert modes["a"].logs_dir == ".as-test/logs/a"
    assert (modes["b"].out_dir, modes["b"].snapshot_dir) == ("b-out/build", "b-out/snapshots")


def test_disabled_base_logs_stay_disabled_in_modes(tmp_path: Path) -> None:
    config = load(tmp_path, {"logs": "none", "coverageDir": "none", "modes": {"m": {}}})

    assert config.base.logs_dir is None
    assert config.modes["m"].logs_dir is None
    assert config.modes["m"].coverage_dir is None


def test_mode_crash_dir_comes_from_its_fuzz_section(tmp_path: Path) -> None:
    data = {"fuzz": {"crashDir": "crashes"}, "modes": {"m": {"fuzz": {"crashDir": "m-crashes"}}}}

    config = load(tmp_path, data)

    assert config.base.crash_dir == "crashes/default"
    assert config.modes["m"].crash_dir == "m-crashes"


def test_mode_build_options_merge_field_by_field(tmp_path: Path) -> None:
    data = {
        "buildOptions": {"cmd": "make <file>", "args": ["-O3"], "env": {"A": "1"}},
        "modes": {"m": {"buildOptions": {"args": ["--debug"]}}},
    }

    mode = load(tmp_path, data).modes["m"]

    assert (mode.build_cmd, mode.build_args) == ("make <file>", ("--debug",))
    assert mode.build_env["A"] == "1"


def test_modes_keep_declaration_order(tmp_path: Path) -> None:
    config = load(tmp_path, {"modes": {"zeta": {}, "alpha": {}, "mid": {}}})

    assert list(config.modes) == ["zeta", "alpha", "mid"]
    assert [mode.name for mode in config.modes.values()] == ["zeta", "alpha", "mid"]


# --- mode selection ---------------------------------------------------------------------------


def test_plain_run_selects_default_modes_only_and_not_the_base(tmp_path: Path) -> None:
    config = load(tmp_path, MODES_CONFIG)

    selected = select_modes(config)

    assert [mode.name for mode in selected] == ["node:wasi"]
    assert config.modes["custom-dirs"].is_default is False


def test_plain_run_with_only_non_default_modes_selects_nothing(tmp_path: Path) -> None:
    config = load(tmp_path, {"modes": {"slow": {"default": False}}})

    assert select_modes(config) == []


def test_base_config_runs_as_default_when_no_modes_are_declared(tmp_path: Path) -> None:
    config = load(tmp_path, {"outDir": "out"})

    selected = select_modes(config)

    assert [(mode.name, mode.out_dir) for mode in selected] == [("default", "out/default")]


def test_requested_modes_are_split_trimmed_and_deduplicated(tmp_path: Path) -> None:
    config = load(tmp_path, MODES_CONFIG)

    selected = select_modes(config, ["custom-dirs, node:wasi", "custom-dirs", " ,"])

    assert [mode.name for mode in selected] == ["custom-dirs", "node:wasi"]


def test_requesting_default_selects_the_base_config(tmp_path: Path) -> None:
    config = load(tmp_path, MODES_CONFIG)

    assert select_modes(config, ["default,node:wasi"]) == [
        config.base,
        config.modes["node:wasi"],
    ]


def test_unknown_mode_names_the_available_ones(tmp_path: Path) -> None:
    config = load(tmp_path, MODES_CONFIG)

    with pytest.raises(ConfigError) as caught:
        select_modes(config, ["node:wasy"])

    message = str(caught.value)
    assert caught.value.field == "mode"
    assert 'unknown mode "node:wasy"' in message
    assert 'did you mean "node:wasi"' in message
    assert "fix:" in message
    assert "default, node:wasi, custom-dirs" in caught.value.fix


# --- string modes ----------------------------------------------------------------------------


def test_string_mode_loads_a_file_relative_to_the_config_directory(tmp_path: Path) -> None:
    conf_dir = tmp_path / "conf"
    write_json(conf_dir / "ci.json", {"outDir": "ci-build", "env": "./ci.env"})
    (conf_dir / "ci.env").write_text("CI=1\n", encoding="utf-8")
    write_json(
        conf_dir / CONFIG_NAME, {"buildOptions": {"args": ["-O"]}, "modes": {"ci": "ci.json"}}
    )

    mode = load_config(Path("conf") / CONFIG_NAME, tmp_path).modes["ci"]

    # paths inside the mode file stay relative to the project root, not to conf/
    assert mode.out_dir == "ci-build"
    assert mode.env == {"CI": "1"}
    assert mode.build_args == ("-O",)
    assert mode.is_default is True


def test_string_mode_declaring_modes_is_an_error(tmp_path: Path) -> None:
    write_json(tmp_path / "ci.json", {"modes": {"x": {}}})

    error = load_error(tmp_path, {"modes": {"ci": "./ci.json"}})

    assert error.config_path == "ci.json"
    assert error.field == "$.modes"
    assert "nested modes" in str(error)
    assert "fix:" in str(error)


def test_string_mode_with_a_missing_file_is_an_error(tmp_path: Path) -> None:
    error = load_error(tmp_path, {"modes": {"ci": "./missing.json"}})

    assert error.field == "$.modes.ci"
    assert "missing.json" in error.problem
    assert CONFIG_NAME in str(error)


def test_string_mode_file_errors_point_at_that_file(tmp_path: Path) -> None:
    write_json(tmp_path / "ci.json", {"buildOptions": {"target": "x"}})

    error = load_error(tmp_path, {"modes": {"ci": "ci.json"}})

    assert str(error).startswith("ci.json: $.buildOptions.target: ")


# --- env --------------------------------------------------------------------------------------


def test_env_file_is_parsed_relative_to_the_config_directory(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / ".env.test").write_text(
        "# comment\nexport A=1\nB=\"two\\nlines\"\nC='single $quoted'\n\nD = spaced \n",
        encoding="utf-8",
    )
    write_json(tmp_path / "conf" / CONFIG_NAME, {"env": ".env.test"})

    env = load_config(Path("conf") / CONFIG_NAME, tmp_path).base.env

    assert env == {"A": "1", "B": "two\nlines", "C": "single $quoted", "D": "spaced"}


def test_env_array_splits_on_first_equals_and_trims_the_key(tmp_path: Path) -> None:
    env = load(tmp_path, {"env": [" A =x=y", "B="]}).base.env

    assert env == {"A": "x=y", "B": ""}


def test_env_mappings_are_sorted_by_key(tmp_path: Path) -> None:
    data = {"env": {"Z": "1", "A": "2"}, "runOptions": {"env": {"M": "3"}}}

    base = load(tmp_path, data).base

    assert list(base.env) == ["A", "Z"]
    assert list(base.run_env) == ["A", "M", "Z"]
    assert list(base.build_env) == ["A", "AS_TEST_COVERAGE_ENABLED", "AS_TEST_MODE_NAME", "Z"]


def test_build_env_layers_build_options_env_over_env(tmp_path: Path) -> None:
    data = {"env": {"X": "env", "Y": "env"}, "buildOptions": {"env": ["X=build"]}}

    base = load(tmp_path, data).base

    assert base.build_env == {
        "AS_TEST_COVERAGE_ENABLED": "0",
        "AS_TEST_MODE_NAME": "default",
        "X": "build",
        "Y": "env",
    }
    assert base.run_env == {"X": "env", "Y": "env"}


# --- coverage ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("coverage", "enabled"),
    [
        (True, True),
        (False, False),
        ({"include": ["assembly/**/*.ts"]}, True),  # 1.1.0 build: no "enabled" means enabled
        ({"enabled": False, "include": ["a/*.ts"]}, False),
        ({"enabled": True}, True),
    ],
)
def test_build_env_carries_the_coverage_flag(
    tmp_path: Path, coverage: object, enabled: bool
) -> None:
    base = load(tmp_path, {"coverage": coverage}).base

    assert base.coverage_enabled is enabled
    assert base.build_env["AS_TEST_COVERAGE_ENABLED"] == ("1" if enabled else "0")


def test_mode_coverage_object_merges_and_boolean_replaces(tmp_path: Path) -> None:
    data = {
        "coverage": True,
        "modes": {
            "keeps": {"coverage": {"include": ["a/*.ts"]}},
            "turns-off": {"coverage": {"enabled": False}},
            "replaces": {"coverage": False},
        },
    }

    modes = load(tmp_path, data).modes

    assert modes["keeps"].coverage_enabled is True
    assert modes["turns-off"].coverage_enabled is False
    assert modes["replaces"].build_env["AS_TEST_COVERAGE_ENABLED"] == "0"


def test_mode_coverage_object_inherits_a_disabled_base(tmp_path: Path) -> None:
    # as-test merges the object onto the base's `false`, so "enabled" stays false.
    mode = load(tmp_path, {"modes": {"m": {"coverage": {"include": ["a/*.ts"]}}}}).modes["m"]

    assert mode.coverage_enabled is False


def test_coverage_rules_are_carried_into_the_mode(tmp_path: Path) -> None:
    coverage = {
        "enabled": True,
        "includeSpecs": True,
        "include": ["assembly/src/**/*.ts"],
        "exclude": ["assembly/src/gen/**"],
        "ignore": {"labels": ["Call"], "names": ["panic"], "locations": ["a.ts:1:*"]},
    }

    rules = load(tmp_path, {"coverage": coverage}).base.coverage_rules

    assert rules == CoverageRules(
        include_specs=True,
        include=("assembly/src/**/*.ts",),
        exclude=("assembly/src/gen/**",),
        ignore_labels=("Call",),
        ignore_names=("panic",),
        ignore_locations=("a.ts:1:*",),
    )


def test_mode_coverage_rules_merge_key_by_key_and_ignore_list_by_list(tmp_path: Path) -> None:
    data = {
        "coverage": {
            "enabled": True,
            "include": ["base/**"],
            "exclude": ["base-gen/**"],
            "ignore": {"labels": ["Call"], "names": ["base"]},
        },
        "modes": {
            "narrower": {"coverage": {"include": ["mode/**"], "ignore": {"names": ["mode"]}}},
            "plain": {"coverage": True},
        },
    }

    modes = load(tmp_path, data).modes

    narrower = modes["narrower"].coverage_rules
    assert narrower.include == ("mode/**",)
    assert narrower.exclude == ("base-gen/**",)
    assert (narrower.ignore_labels, narrower.ignore_names) == (("Call",), ("mode",))
    assert modes["plain"].coverage_rules == CoverageRules()  # a boolean replaces the object


def test_coverage_without_rules_keeps_every_point(tmp_path: Path) -> None:
    assert load(tmp_path, {"coverage": True}).base.coverage_rules == CoverageRules()


# --- build args and runtime ----------------------------------------------------------------------


def test_build_args_are_shell_tokenized_and_flattened(tmp_path: Path) -> None:
    args = ["--bindings raw", "--optimize", "--use 'A=b c'", ""]

    base = load(tmp_path, {"buildOptions": {"args": args}}).base

    assert base.build_args == ("--bindings", "raw", "--optimize", "--use", "A=b c")


@pytest.mark.parametrize(
    ("run_options", "expected"),
    [
        ({"runtime": {"cmd": "a <file>", "run": "b"}, "run": "c"}, "a <file>"),
        ({"runtime": {"run": "b"}, "run": "c"}, "b"),
        ({"runtime": {"cmd": ""}, "run": "c"}, "c"),
        ({"run": ""}, ""),
    ],
)
def test_runtime_command_precedence(
    tmp_path: Path, run_options: dict[str, object], expected: str
) -> None:
    assert load(tmp_path, {"runOptions": run_options}).base.runtime_cmd == expected


def test_no_runtime_command_is_left_empty_for_the_in_process_default(tmp_path: Path) -> None:
    data = {"modes": {"b": {"buildOptions": {"target": "bindings"}}}}

    mode = load(tmp_path, data).modes["b"]

    assert mode.runtime_cmd == ""


def test_mode_runtime_overrides_base_runtime(tmp_path: Path) -> None:
    data = {
        "runOptions": {"runtime": {"cmd": "base <file>"}},
        "modes": {"m": {"runOptions": {"run": "legacy <file>"}}, "n": {}},
    }

    modes = load(tmp_path, data).modes

    assert modes["m"].runtime_cmd == "legacy <file>"
    assert modes["n"].runtime_cmd == "base <file>"


# --- errors -----------------------------------------------------------------------------------

ERROR_CASES: list[tuple[object, str]] = [
    ([1, 2], "$"),
    ({"input": 5}, "$.input"),
    ({"input": ""}, "$.input"),
    ({"input": ["ok/*.spec.ts", ""]}, "$.input[1]"),
    ({"outDir": 3}, "$.outDir"),
    ({"outDir": ""}, "$.outDir"),
    ({"config": ""}, "$.config"),
    ({"output": ""}, "$.output"),
    ({"output": 7}, "$.output"),
    ({"output": {"build": ""}}, "$.output.build"),
    ({"output": {"logs": 1}}, "$.output.logs"),
    ({"env": 5}, "$.env"),
    ({"env": ["NO_EQUALS"]}, "$.env[0]"),
    ({"env": ["=value"]}, "$.env[0]"),
    ({"env": ["  =value"]}, "$.env[0]"),
    ({"env": [3]}, "$.env[0]"),
    ({"env": {"A": 1}}, "$.env.A"),
    ({"env": ""}, "$.env"),
    ({"buildOptions": []}, "$.buildOptions"),
    ({"buildOptions": {"target": "x"}}, "$.buildOptions.target"),
    ({"buildOptions": {"target": 1}}, "$.buildOptions.target"),
    ({"buildOptions": {"args": "-O3"}}, "$.buildOptions.args"),
    ({"buildOptions": {"args": [1]}}, "$.buildOptions.args[0]"),
    ({"buildOptions": {"args": ["--use 'open"]}}, "$.buildOptions.args[0]"),
    ({"buildOptions": {"cmd": 1}}, "$.buildOptions.cmd"),
    ({"buildOptions": {"env": ["X"]}}, "$.buildOptions.env[0]"),
    ({"runOptions": "x"}, "$.runOptions"),
    ({"runOptions": {"runtime": "x"}}, "$.runOptions.runtime"),
    ({"runOptions": {"runtime": {"cmd": 1}}}, "$.runOptions.runtime.cmd"),
    ({"runOptions": {"reporter": 1}}, "$.runOptions.reporter"),
    ({"runOptions": {"env": {"A": False}}}, "$.runOptions.env.A"),
    ({"coverage": "yes"}, "$.coverage"),
    ({"coverage": {"enabled": "yes"}}, "$.coverage.enabled"),
    ({"coverage": {"include": [""]}}, "$.coverage.include[0]"),
    ({"coverage": {"mode": "some"}}, "$.coverage.mode"),
    ({"coverage": {"ignore": {"names": "x"}}}, "$.coverage.ignore.names"),
    ({"fuzz": {"runs": 0}}, "$.fuzz.runs"),
    ({"fuzz": {"seed": -1}}, "$.fuzz.seed"),
    ({"fuzz": {"runs": True}}, "$.fuzz.runs"),
    ({"fuzz": {"target": "wasi"}}, "$.fuzz.target"),
    ({"cache": "sometimes"}, "$.cache"),
    ({"cache": {"maxTime": "soon"}}, "$.cache.maxTime"),
    ({"features": [""]}, "$.features[0]"),
    ({"modes": []}, "$.modes"),
    ({"modes": {"m": 3}}, "$.modes.m"),
    ({"modes": {"m": ""}}, "$.modes.m"),
    ({"modes": {"m": {"default": "no"}}}, "$.modes.m.default"),
    ({"modes": {"m": {"buildOptions": {"target": "x"}}}}, "$.modes.m.buildOptions.target"),
    ({"modes": {"m": {"modes": {}}}}, "$.modes.m.modes"),
    ({"modes": {"default": {}}}, "$.modes.default"),
    ({"modes": {"a/b": {}}}, "$.modes.a/b"),
    ({"modes": {"a,b": {}}}, "$.modes.a,b"),
    ({"modes": {"..": {}}}, "$.modes..."),
    ({"env": "./missing.env"}, "$.env"),
]


@pytest.mark.parametrize(("data", "field"), ERROR_CASES)
def test_invalid_values_raise_one_line_config_errors(
    tmp_path: Path, data: object, field: str
) -> None:
    error = load_error(tmp_path, data)
    message = str(error)

    assert error.field == field
    assert message.startswith(f"{CONFIG_NAME}: {field}: ")
    assert "; fix: " in message
    assert error.fix
    assert "\n" not in message


def test_invalid_json_reports_line_and_column(tmp_path: Path) -> None:
    error = load_error(tmp_path, '{\n  "input": [,]\n}')

    assert error.field == ""
    assert "line 2 column" in error.problem
    assert str(error).startswith(f"{CONFIG_NAME}: invalid JSON: ")
    assert str(error).endswith("fix: correct the JSON syntax")


def test_non_standard_json_constants_are_rejected(tmp_path: Path) -> None:
    error = load_error(tmp_path, '{"fuzz": {"runs": NaN}}')

    assert "NaN" in error.problem
    assert error.fix == "correct the JSON syntax"


def test_web_target_and_its_browser_are_read_per_mode(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {
            "runOptions": {"runtime": {"browser": "chromium"}},
            "modes": {
                "web": {"buildOptions": {"target": "web"}},
                "chrome": {
                    "buildOptions": {"target": "web"},
                    "runOptions": {"runtime": {"browser": "/opt/chrome/chrome"}},
                },
            },
        },
    )
    assert config.modes["web"].target == "web"
    assert config.modes["web"].browser == "chromium"  # inherited from the base config
    assert config.modes["chrome"].browser == "/opt/chrome/chrome"


def test_a_browser_that_is_not_a_string_is_an_error(tmp_path: Path) -> None:
    error = load_error(tmp_path, {"runOptions": {"runtime": {"browser": 3}}})
    assert error.field == "$.runOptions.runtime.browser"


def test_unknown_target_names_the_received_value(tmp_path: Path) -> None:
    error = load_error(tmp_path, {"buildOptions": {"target": "wasm"}})

    assert error.problem == 'must be "wasi", "bindings" or "web", got "wasm"'
    assert error.fix == 'set "target" to "wasi", "bindings" or "web"'


def test_missing_env_file_names_the_resolved_path(tmp_path: Path) -> None:
    error = load_error(tmp_path, {"runOptions": {"env": "conf/.env"}})

    assert error.field == "$.runOptions.env"
    assert "env file not found: conf/.env" in error.problem


def test_malformed_env_file_line_is_reported_with_its_line_number(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("A=1\nBROKEN\n", encoding="utf-8")

    error = load_error(tmp_path, {"env": ".env"})

    assert error.field == "$.env"
    assert ".env line 2" in error.problem


# --- unknown keys -----------------------------------------------------------------------------


def test_unknown_keys_warn_with_did_you_mean(tmp_path: Path) -> None:
    data = {
        "inptu": [],
        "buildOptions": {"targte": "wasi"},
        "output": {"bulid": "x"},
        "modes": {"m": {"defualt": False, "runOptions": {"runtime": {"cmdd": "x"}}}},
        "completelyUnrelatedKey": 1,
    }

    warnings = load(tmp_path, data).warnings

    assert warnings == (
        f'{CONFIG_NAME}: unknown key $.inptu ignored (did you mean "input"?)',
        f"{CONFIG_NAME}: unknown key $.completelyUnrelatedKey ignored",
        f'{CONFIG_NAME}: unknown key $.output.bulid ignored (did you mean "build"?)',
        f'{CONFIG_NAME}: unknown key $.buildOptions.targte ignored (did you mean "target"?)',
        f'{CONFIG_NAME}: unknown key $.modes.m.defualt ignored (did you mean "default"?)',
        f"{CONFIG_NAME}: unknown key $.modes.m.runOptions.runtime.cmdd ignored"
        ' (did you mean "cmd"?)',
    )


def test_unknown_keys_do_not_change_the_settings(tmp_path: Path) -> None:
    config = load(tmp_path, {"buildOptions": {"targte": "bindings"}})

    assert config.base.target == "wasi"
    assert len(config.warnings) == 1


def test_unknown_key_in_a_mode_file_names_that_file(tmp_path: Path) -> None:
    write_json(tmp_path / "modes" / "ci.json", {"default": False})

    warnings = load(tmp_path, {"modes": {"ci": "modes/ci.json"}}).warnings

    assert warnings == ("modes/ci.json: unknown key $.default ignored",)


def test_legal_keys_warn_only_about_as_tests_own_cache(tmp_path: Path) -> None:
    # 1.6.0 knows every key here: "cache" and "features" as well as the reporter (gone in 1.7).
    data = {
        "$schema": "./as-test.config.schema.json",
        "cache": {"type": "full", "maxTime": "1h"},
        "features": ["simd", "try-as"],
        "coverage": {
            "enabled": True,
            "includeSpecs": False,
            "mode": "project",
            "dependencies": ["json-as"],
            "include": ["assembly/**/*.ts"],
            "exclude": ["assembly/__tests__/**"],
            "ignore": {
                "labels": ["Call"],
                "names": ["x"],
                "locations": ["a:1:1"],
                "snippets": ["y"],
            },
        },
        "fuzz": {
            "input": "./assembly/__fuzz__/*.fuzz.ts",
            "runs": 10,
            "seed": 0,
            "maxInputBytes": 64,
            "target": "bindings",
            "corpusDir": "corpus",
            "crashDir": "crashes",
        },
        "runOptions": {
            "reporter": {"name": "tap", "options": ["per-file"], "outDir": "r", "outFile": "r/x"},
            "runtime": {"cmd": "wasmtime run <file>", "run": "x", "browser": "firefox"},
            "run": "legacy",
            "env": {},
        },
        "buildOptions": {"cmd": "", "args": [], "target": "wasi", "env": {}},
        "modes": {
            "m": {"default": True, "cache": "build", "features": [], "runOptions": {"reporter": ""}}
        },
    }

    warnings = load(tmp_path, data, "1.6.0").warnings
    assert [w.split(" is ")[0] for w in warnings] == [
        "as-test.config.json: $.cache",
        "as-test.config.json: $.modes.m.cache",
    ]
    assert all("caches every build and run with doit" in w for w in warnings)
    assert load(tmp_path, {"runOptions": {"reporter": "default"}}, "1.6.0").warnings == ()


# --- fuzz ------------------------------------------------------------------------------------


def test_fuzz_settings_default_to_as_tests_but_leave_the_seed_to_chance(tmp_path: Path) -> None:
    fuzz = load(tmp_path, {}).fuzz
    assert fuzz.input_patterns == ("./assembly/__fuzz__/*.fuzz.ts",)
    assert (fuzz.runs, fuzz.seed, fuzz.explicit_input) == (1000, None, False)


def test_fuzz_settings_come_from_the_fuzz_block(tmp_path: Path) -> None:
    fuzz = load(tmp_path, {"fuzz": {"input": "fz/*.fuzz.ts", "runs": 250, "seed": 0}}).fuzz
    assert fuzz.input_patterns == ("fz/*.fuzz.ts",)
    assert (fuzz.runs, fuzz.seed, fuzz.explicit_input) == (250, 0, True)


# --- rules per installed as-test version -----------------------------------------------------

VERSIONED_MODES = {
    "env": {"SHARED": "base", "BASE_ONLY": "1"},
    "coverage": {"enabled": True, "exclude": ["assembly/gen/**"]},
    "buildOptions": {
        "args": ["--transform ./transform"],
        "env": {"B": "base"},
    },
    "runOptions": {"env": {"R": "base"}},
    "modes": {
        "simd": {
            "env": {"SHARED": "mode"},
            "coverage": {"include": ["assembly/**"]},
            "buildOptions": {"args": ["--enable simd"], "env": {"B2": "mode"}},
            "runOptions": {"env": {"R2": "mode"}},
        }
    },
}


def test_as_test_1_0_7_appends_a_modes_args_to_the_base_args(tmp_path: Path) -> None:
    mode = load(tmp_path, VERSIONED_MODES, "1.0.7").modes["simd"]
    assert mode.build_args == ("--transform", "./transform", "--enable", "simd")


@pytest.mark.parametrize("version", ["1.0.14", "1.0.16", "1.8.0"])
def test_from_1_0_14_a_modes_args_replace_the_base_args(tmp_path: Path, version: str) -> None:
    mode = load(tmp_path, VERSIONED_MODES, version).modes["simd"]
    assert mode.build_args == ("--enable", "simd")


@pytest.mark.parametrize("version", ["1.0.7", "1.0.15"])
def test_before_1_0_16_a_modes_env_maps_merge_key_by_key(tmp_path: Path, version: str) -> None:
    mode = load(tmp_path, VERSIONED_MODES, version).modes["simd"]
    assert mode.env == {"BASE_ONLY": "1", "SHARED": "mode"}
    assert mode.run_env == {"BASE_ONLY": "1", "R": "base", "R2": "mode", "SHARED": "mode"}
    assert {k: v for k, v in mode.build_env.items() if not k.startswith("AS_TEST_")} == {
        "B": "base",
        "B2": "mode",
        "BASE_ONLY": "1",
        "SHARED": "mode",
    }


def test_from_1_0_16_a_modes_env_maps_replace_the_base_ones(tmp_path: Path) -> None:
    mode = load(tmp_path, VERSIONED_MODES, "1.0.16").modes["simd"]
    assert mode.env == {"SHARED": "mode"}
    assert mode.run_env == {"R2": "mode", "SHARED": "mode"}
    assert {k: v for k, v in mode.build_env.items() if not k.startswith("AS_TEST_")} == {
        "B2": "mode",
        "SHARED": "mode",
    }


def test_as_test_1_0_7_replaces_the_coverage_object_whole_and_off_unless_enabled(
    tmp_path: Path,
) -> None:
    mode = load(tmp_path, VERSIONED_MODES, "1.0.7").modes["simd"]
    assert mode.coverage_enabled is False  # 1.0.7 fills the mode's object from its defaults
    assert mode.coverage_rules.exclude == ()
    assert mode.coverage_rules.include == ("assembly/**",)


def test_from_1_0_16_a_modes_coverage_object_merges_key_by_key(tmp_path: Path) -> None:
    mode = load(tmp_path, VERSIONED_MODES, "1.0.16").modes["simd"]
    assert mode.coverage_enabled is True
    assert mode.coverage_rules.exclude == ("assembly/gen/**",)
    assert mode.coverage_rules.include == ("assembly/**",)


@pytest.mark.parametrize(
    ("version", "expected"),
    [("1.0.7", {}), ("1.2.0", {}), ("1.3.0", {"AS_TEST_MODE_NAME": "simd"})],
)
def test_the_build_env_names_the_mode_from_1_3_0(
    tmp_path: Path, version: str, expected: dict[str, str]
) -> None:
    mode = load(tmp_path, VERSIONED_MODES, version).modes["simd"]
    assert {k: v for k, v in mode.build_env.items() if k == "AS_TEST_MODE_NAME"} == expected


SELECTION = {
    "modes": {"a": {"default": True}, "b": {"default": False}, "c": {}},
}


@pytest.mark.parametrize(
    ("version", "expected"),
    [("1.1.0", ["default", "a", "c"]), ("1.1.6", ["default", "a", "c"]), ("1.1.7", ["a", "c"])],
)
def test_a_plain_run_selects_modes_as_the_installed_as_test_does(
    tmp_path: Path, version: str, expected: list[str]
) -> None:
    config = load(tmp_path, SELECTION, version)
    assert [mode.name for mode in select_modes(config)] == expected
    assert [mode.name for mode in select_modes(config, ["b"])] == ["b"]


def test_as_test_1_0_7_runs_every_declared_mode_and_not_the_base(tmp_path: Path) -> None:
    config = load(tmp_path, VERSIONED_MODES | {"modes": {"x": {}, "y": {}}}, "1.0.7")
    assert [mode.name for mode in select_modes(config)] == ["x", "y"]


@pytest.mark.parametrize(
    ("data", "field", "release"),
    [
        ({"features": ["simd"]}, "$.features", "1.3.0"),
        ({"modes": {"m": {"features": ["simd"]}}}, "$.modes.m.features", "1.3.0"),
        ({"modes": {"m": {"default": False}}}, "$.modes.m.default", "1.1.0"),
    ],
)
def test_a_key_the_installed_as_test_rejects_names_the_release_that_brought_it(
    tmp_path: Path, data: dict[str, object], field: str, release: str
) -> None:
    error = load_error(tmp_path, data, "1.0.7")
    assert error.field == field
    assert f"needs as-test {release} or newer" in error.problem
    assert "as-test 1.0.7" in error.problem
    assert "npm install --save-dev as-test@1.8.0" in error.fix
    assert str(error).count("\n") == 0


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"modes": {"m": {"input": ["a.spec.ts"]}}}, "$.modes.m.input"),
        ({"modes": {"m": {"output": "out"}}}, "$.modes.m.output"),
        ({"modes": {"m": "./m.json"}}, "$.modes.m"),
    ],
)
def test_mode_file_keys_of_1_0_14_are_honoured_under_1_0_7_with_a_warning(
    tmp_path: Path, data: dict[str, object], field: str
) -> None:
    write_json(tmp_path / "m.json", {"input": ["b.spec.ts"]})
    config = load(tmp_path, data, "1.0.7")
    (warning,) = config.warnings
    assert warning.startswith(f"as-test.config.json: {field} needs as-test 1.0.14 or newer")
    assert "follows 1.0.14's meaning; fix:" in warning
    assert config.modes["m"].input_patterns != config.base.input_patterns or "output" in str(data)


def test_features_are_normalised_like_as_test_and_replace_per_mode(tmp_path: Path) -> None:
    data = {
        "features": [" SIMD ", "try_as", "simd"],
        "modes": {"plain": {"features": []}, "same": {}},
    }
    config = load(tmp_path, data, "1.8.0")
    assert config.base.features == ("simd", "try-as")
    assert config.modes["plain"].features == ()
    assert config.modes["same"].features == ("simd", "try-as")


def test_a_coverage_feature_turns_coverage_on_and_says_how_to_write_it(tmp_path: Path) -> None:
    config = load(tmp_path, {"features": ["coverage", "simd"]}, "1.8.0")
    assert config.base.features == ("simd",)
    assert config.base.coverage_enabled is True
    assert any('"coverage": true' in warning for warning in config.warnings)


def test_cache_under_an_as_test_without_it_is_a_warning_naming_the_release(
    tmp_path: Path,
) -> None:
    (warning,) = load(tmp_path, {"cache": True}, "1.0.7").warnings
    assert "$.cache needs as-test 1.6.0 or newer" in warning and "fix:" in warning


def test_the_reporter_removed_in_1_7_is_ignored_with_a_warning(tmp_path: Path) -> None:
    (warning,) = load(tmp_path, {"runOptions": {"reporter": "default"}}, "1.8.0").warnings
    assert "removed in as-test 1.7.0" in warning


@pytest.mark.parametrize(("version", "expected"), [("1.0.7", "wasmtime run <file>"), ("1.8.0", "")])
def test_an_empty_mode_runtime_keeps_the_base_one_only_in_1_0_7(
    tmp_path: Path, version: str, expected: str
) -> None:
    data = {
        "runOptions": {"runtime": {"cmd": "wasmtime run <file>"}},
        "modes": {"m": {"runOptions": {"runtime": {"cmd": ""}}}},
    }
    assert load(tmp_path, data, version).modes["m"].runtime_cmd == expected


# --- output root, mode names, build key part ----------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected", "former"),
    [
        ({}, ".as-test", ".as-test"),
        ({"output": "./results"}, "results", "results"),
        ({"output": "./results", "outDir": "./build"}, "results", "."),
        ({"output": "./"}, ".as-test", "."),  # the project's root is never ours
        ({"outDir": "./out"}, ".as-test", "."),
        ({"outDir": "../shared/build"}, ".as-test", "../shared"),
        ({"output": {"build": "/tmp/x/build"}}, ".as-test", "/tmp/x"),
    ],
)
def test_the_output_root_is_dot_as_test_or_a_string_output_never_the_build_folders_parent(
    tmp_path: Path, data: object, expected: str, former: str
) -> None:
    """Our reports and caches never land beside the user's files because of ``outDir``;
    ``former_output_root`` is where 0.1.0 put them (outDir's parent), for the moved note."""
    config = load(tmp_path, data)
    assert (config.output_root, config.former_output_root) == (expected, former)


def test_a_missing_config_has_the_default_output_root(tmp_path: Path) -> None:
    assert load_config(Path(CONFIG_NAME), tmp_path).output_root == ".as-test"


def test_mode_names_split_on_commas_trimmed_and_each_once() -> None:
    assert split_mode_names(["ci, web", "ci", " ,", "node:wasi"]) == ["ci", "web", "node:wasi"]
    assert split_mode_names([""]) == []


def test_the_build_key_part_holds_every_setting_a_build_depends_on(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {
            "config": "./asconfig.json",
            "coverage": True,
            "features": ["simd"],
            "buildOptions": {"cmd": "npx asc", "args": ["-O3"], "target": "bindings"},
            "env": {"B": "2", "A": "1"},
        },
        "1.8.0",
    )

    assert config.base.build_key_part() == {
        "mode": "default",
        "target": "bindings",
        "asconfig": "asconfig.json",
        "args": ["-O3"],
        "features": ["simd"],
        "cmd": "npx asc",
        "env": {
            "A": "1",
            "AS_TEST_COVERAGE_ENABLED": "1",
            "AS_TEST_MODE_NAME": "default",
            "B": "2",
        },
        "coverage": True,
    }


def test_a_modes_fuzz_keys_replace_the_bases_one_by_one_also_from_a_file(
    tmp_path: Path,
) -> None:
    write_json(tmp_path / "as-test.x.json", {"fuzz": {"input": ["./f/x.fuzz.ts"]}})
    config = load(
        tmp_path,
        {
            "fuzz": {"input": ["./f/base.fuzz.ts"], "runs": 30, "seed": 5},
            "modes": {
                "inline": {"fuzz": {"runs": 7, "seed": 9}},
                "fromfile": "./as-test.x.json",
                "inherits": {},
            },
        },
        "1.8.0",
    )
    fuzz = {name: mode.fuzz for name, mode in config.modes.items()}
    assert (fuzz["inline"].input_patterns, fuzz["inline"].runs, fuzz["inline"].seed) == (
        ("./f/base.fuzz.ts",),
        7,
        9,
    )
    assert (fuzz["fromfile"].input_patterns, fuzz["fromfile"].runs) == (("./f/x.fuzz.ts",), 30)
    assert fuzz["inherits"] == config.fuzz == config.base.fuzz
    assert config.fuzz.explicit_input and config.fuzz.seed == 5


def test_fuzz_runs_round_down_as_as_test_does(tmp_path: Path) -> None:
    config = load(tmp_path, {"fuzz": {"runs": 1.6}, "modes": {"x": {"fuzz": {"runs": 7.9}}}})
    assert (config.fuzz.runs, config.modes["x"].fuzz.runs) == (1, 7)
