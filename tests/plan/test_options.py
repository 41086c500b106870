"""TaskOptions: the declared fields generate doit's params, and from_values reads doit's values."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest
from doit.cmdparse import CmdOption, CmdParse

from astest_tasks.config.feature_switches import FeatureSwitches
from astest_tasks.config.run_switches import RunSwitches, ShowCoverage
from astest_tasks.config.shards import Shard
from astest_tasks.core.errors import UserError
from astest_tasks.model.snapshot_update import SnapshotUpdate
from astest_tasks.plan.options import (
    BARE_FOLLOWERS,
    BARE_VALUES,
    GROUP_OF,
    GROUPS,
    OPTIONS,
    TASK_PARAMS,
    TaskOptions,
    option_specs,
    read_option,
    task_options,
)
from astest_tasks.remote.settings import RemoteMode

# The options as they were declared by hand before the record generated them (README's
# option table and every dodo.py depend on these): name, short, type, default, env var.
BEFORE_THE_RECORD: list[tuple[str, str, type, str | bool, str]] = [
    ("mode", "m", str, "", "ASTEST_MODE"),
    ("timeout", "", str, "300", "ASTEST_TIMEOUT"),
    ("memory_limit", "", str, "1024", "ASTEST_MEMORY_LIMIT"),
    ("output_limit", "", str, "64", "ASTEST_OUTPUT_LIMIT"),
    ("spec", "", str, "", "ASTEST_SPEC"),
    ("suite", "", str, "", "ASTEST_SUITE"),
    ("test_name_pattern", "t", str, "", "ASTEST_TEST_NAME_PATTERN"),
    ("changed", "", str, "", "ASTEST_CHANGED"),
    ("last_failed", "", bool, False, "ASTEST_LAST_FAILED"),
    ("update_snapshots", "", str, "", "ASTEST_UPDATE_SNAPSHOTS"),
    ("create_snapshots", "", bool, False, "ASTEST_CREATE_SNAPSHOTS"),
    ("overwrite_snapshots", "", bool, False, "ASTEST_OVERWRITE_SNAPSHOTS"),
    ("no_snapshot", "", bool, False, "ASTEST_NO_SNAPSHOT"),
    ("show_coverage", "", str, "", "ASTEST_SHOW_COVERAGE"),
    ("browser", "", str, "", "ASTEST_BROWSER"),
    ("headful", "", bool, False, "ASTEST_HEADFUL"),
    ("fuzz", "", bool, False, "ASTEST_FUZZ"),
    ("fuzz_seed", "", str, "", "ASTEST_FUZZ_SEED"),
    ("fuzz_runs", "", str, "", "ASTEST_FUZZ_RUNS"),
    ("fuzzer", "", str, "", "ASTEST_FUZZER"),
    ("coverage", "", str, "", "ASTEST_COVERAGE"),
    ("enable", "e", str, "", "ASTEST_ENABLE"),
    ("disable", "", str, "", "ASTEST_DISABLE"),
    ("coverage_fail_under", "", str, "", "ASTEST_COVERAGE_FAIL_UNDER"),
    ("shard", "", str, "", "ASTEST_SHARD"),
    ("shard_durations", "", str, "", "ASTEST_SHARD_DURATIONS"),
    ("list", "", bool, False, "ASTEST_LIST"),
    ("list_modes", "", bool, False, "ASTEST_LIST_MODES"),
    ("verbose", "", bool, False, "ASTEST_VERBOSE"),
    ("show_logs", "", bool, False, "ASTEST_SHOW_LOGS"),
    ("durations", "", str, "", "ASTEST_DURATIONS"),
    ("version", "", bool, False, "ASTEST_PRINT_VERSION"),
    ("config", "c", str, "as-test.config.json", "ASTEST_CONFIG"),
    ("remote_cache", "", str, "", "ASTEST_REMOTE_CACHE"),
    ("remote_cache_mode", "", str, "read-write", "ASTEST_REMOTE_CACHE_MODE"),
    ("remote_cache_connect_timeout", "", str, "2", "ASTEST_REMOTE_CACHE_CONNECT_TIMEOUT"),
    ("remote_cache_request_timeout", "", str, "10", "ASTEST_REMOTE_CACHE_REQUEST_TIMEOUT"),
]


def test_the_generated_params_are_the_options_as_declared_before_the_record() -> None:
    generated = [
        (p["name"], p.get("short", ""), p["type"], p["default"], p["env_var"]) for p in TASK_PARAMS
    ]
    # The same options; their order is now the stages' (GROUPS), which doit help follows.
    assert sorted(generated, key=_name) == sorted(BEFORE_THE_RECORD, key=_name)
    assert [p["long"] for p in TASK_PARAMS] == [n.replace("_", "-") for n, *_ in generated]
    assert all(
        set(p) <= {"name", "long", "short", "type", "default", "env_var", "help"}
        for p in TASK_PARAMS
    )
    assert all(p["help"] for p in TASK_PARAMS)


def _name(option: tuple[str, str, type, str | bool, str]) -> str:
    return option[0]


def test_every_option_is_a_field_of_one_stages_record_and_every_other_field_a_joint_reading() -> (
    None
):
    held = [f.name for f in fields(TaskOptions) if f.init]
    assert held == [group for group, _ in GROUPS], "TaskOptions holds one record per stage"
    names = [f.name for _, record in GROUPS for f in fields(record) if f.init]
    assert names == [option.name for option in OPTIONS]
    assert len(set(names)) == len(names), "an option belongs to one record"
    joint = [
        f.name for _, record in (*GROUPS, ("", TaskOptions)) for f in fields(record) if not f.init
    ]
    assert joint == ["switches", "features", "run_coverage"]


def test_doit_accepts_the_params_from_the_command_line_and_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser = CmdParse([CmdOption(dict(param)) for param in TASK_PARAMS])
    monkeypatch.setenv("ASTEST_SUITE", "math/add")
    monkeypatch.setenv("ASTEST_HEADFUL", "yes")
    values, rest = parser.parse(["-m", "wasi,web", "--timeout=10,web=30", "--fuzz", "-esimd", "x"])
    assert rest == ["x"]
    assert values["mode"] == "wasi,web" and values["timeout"] == "10,web=30"
    assert values["fuzz"] is True and values["enable"] == "simd"
    assert values["suite"] == "math/add" and values["headful"] is True
    assert values["config"] == "as-test.config.json"
    timeout = next(param for param in TASK_PARAMS if param["name"] == "timeout")
    assert "[default: 300]" in CmdOption(dict(timeout)).help_doc()[0]


def test_doit_accepts_the_params_of_a_creator_with_pinned_values() -> None:
    params = task_options({"config": "web.json", "mode": "web"})
    pinned = {p["name"]: p for p in params}
    assert pinned["config"]["default"] == "web.json" and "env_var" not in pinned["config"]
    assert pinned["mode"]["default"] == "web" and "env_var" not in pinned["mode"]
    assert pinned["spec"]["env_var"] == "ASTEST_SPEC"
    values, _ = CmdParse([CmdOption(dict(param)) for param in params]).parse([])
    assert values["config"] == "web.json"
    assert [option.env_var for option in option_specs({"spec": "a"}) if not option.env_var] == [""]


def test_the_astest_command_completes_the_same_bare_options_as_before() -> None:
    assert BARE_VALUES == {"changed": "HEAD", "show-coverage": "on"}
    assert BARE_FOLLOWERS == {"show-coverage": ("all",)}


def test_the_defaults_of_the_record_are_the_defaults_doit_hands_over_read() -> None:
    assert TaskOptions() == TaskOptions.from_values({p["name"]: p["default"] for p in TASK_PARAMS})
    assert TaskOptions.from_values({}) == TaskOptions()


@pytest.mark.parametrize(
    ("name", "given", "field_value"),
    [
        ("timeout", 30, "30"),  # a config file's `timeout = 30` is a number: kept as text
        ("config", "web.json", "web.json"),
        ("fuzz_seed", "", ""),
        ("fuzz", True, True),
        ("headful", 1, True),
        ("mode", " wasi, web,,", ("wasi", "web")),
        ("spec", "math,nested/*", ("math", "nested/*")),
        ("suite", "", ()),
        ("changed", " origin/main ", "origin/main"),
        ("update_snapshots", "Create", SnapshotUpdate.CREATE),
        ("update_snapshots", "", SnapshotUpdate.NONE),
        ("coverage", "on", True),
        ("coverage", "no", False),
        ("coverage", "", None),
        ("shard", "2/4", Shard(2, 4)),
        ("shard", "", None),
    ],
)
def test_from_values_reads_each_kind_of_option_into_its_field(
    name: str, given: Any, field_value: Any
) -> None:
    options = TaskOptions.from_values({name: given})
    assert getattr(getattr(options, GROUP_OF[name]), name) == field_value
    assert read_option({name: given}, name) == field_value


def test_options_read_together_are_read_once_with_the_record() -> None:
    options = TaskOptions.from_values(
        {"enable": "SIMD,coverage", "disable": "threads", "show_coverage": "all", "browser": " c "}
    )
    assert options.features == FeatureSwitches(
        enable=("simd",), disable=("threads",), coverage=True
    )
    assert options.switches == RunSwitches(False, ShowCoverage.ALL, "c")
    assert options.run_coverage is True
    assert TaskOptions.with_values(show_coverage="on").run_coverage is True, (
        "--show-coverage turns it on"
    )
    assert TaskOptions.with_values(show_coverage="on", coverage=False).run_coverage is False
    assert TaskOptions().run_coverage is None, "the config decides"


@pytest.mark.parametrize(
    ("values", "error"),
    [
        ({"update_snapshots": "all"}, r"^unknown snapshot update 'all'; fix: use `--update"),
        ({"coverage": "maybe"}, r"^--coverage / ASTEST_COVERAGE: 'maybe' is not a coverage"),
        ({"shard": "5/4"}, r"^--shard '5/4': k must be between 1 and N; fix: "),
        ({"shard_durations": "report.json"}, r"^--shard-durations needs --shard; fix: add"),
        ({"enable": "simd", "disable": "SIMD"}, r"^--enable and --disable both name 'simd'"),
        ({"enable": ",,"}, r"^--enable / ASTEST_ENABLE: ',,' names no feature; fix: "),
        ({"show_coverage": "some"}, r"^--show-coverage / ASTEST_SHOW_COVERAGE: 'some' is not"),
        (
            {"no_snapshot": True, "update_snapshots": "create"},
            r"^--no-snapshot with --update-snapshots=create: .*; fix: drop one of the two",
        ),
        (
            {"coverage": "off", "enable": "coverage"},
            r"^--coverage off and --enable coverage disagree; fix: give only one of them",
        ),
    ],
)
def test_a_bad_value_stops_the_record_with_its_one_line_error(
    values: dict[str, Any], error: str
) -> None:
    with pytest.raises(UserError, match=error):
        TaskOptions.from_values(values)


@pytest.mark.parametrize(
    ("values", "reported"),
    [
        # Each value is read in doit help's order (the stages' records, GROUPS), so of two bad
        # ones the first listed there is named: --shard (selection) before -t (reports).
        ({"test_name_pattern": "(", "shard": "9/2"}, "--shard '9/2'"),
        ({"coverage_fail_under": "x", "durations": "y"}, "--durations 'y'"),
        # Then each record's joint checks, in the same order: the run switches' before the
        # features', the selection's before the run switches'.
        (
            {
                "enable": "simd",
                "disable": "simd",
                "no_snapshot": True,
                "update_snapshots": "create",
            },
            "--no-snapshot with --update-snapshots=create",
        ),
        (
            {"shard_durations": "r.json", "create_snapshots": True, "update_snapshots": "replace"},
            "--shard-durations needs --shard",
        ),
    ],
)
def test_of_several_bad_options_the_first_in_doit_helps_order_is_named(
    values: dict[str, object], reported: str
) -> None:
    with pytest.raises(UserError) as raised:
        TaskOptions.from_values(values)
    assert str(raised.value).startswith(reported)


def test_a_name_that_is_not_an_option_is_a_programming_error() -> None:
    with pytest.raises(TypeError, match="not options of the astest tasks: timeout_s"):
        TaskOptions.from_values({"timeout_s": "3"})


def test_as_tests_snapshot_switches_are_the_update_they_spell() -> None:
    def update(**values: object) -> SnapshotUpdate:
        return TaskOptions.from_values(values).run_switches.update_snapshots

    assert update(create_snapshots=True) is SnapshotUpdate.CREATE
    assert update(overwrite_snapshots=True) is SnapshotUpdate.REPLACE
    assert update(create_snapshots=True, overwrite_snapshots=True) is SnapshotUpdate.OVERWRITE
    assert update(create_snapshots=True, update_snapshots="create") is SnapshotUpdate.CREATE
    with pytest.raises(UserError, match="ask for different updates; fix: "):
        update(overwrite_snapshots=True, update_snapshots="create")
    with pytest.raises(UserError, match="--no-snapshot with --update-snapshots=create"):
        update(create_snapshots=True, no_snapshot=True)


def test_the_remote_cache_options_are_read_into_their_fields() -> None:
    options = TaskOptions.from_values(
        {
            "remote_cache": " http://ci:pw@cache.example:8080/astest ",
            "remote_cache_mode": "read",
            "remote_cache_connect_timeout": "0.5",
            "remote_cache_request_timeout": "3",
        }
    )
    remote = options.remote
    assert remote.remote_cache == "http://ci:pw@cache.example:8080/astest"
    assert remote.remote_cache_mode is RemoteMode.READ
    assert (remote.remote_cache_connect_timeout, remote.remote_cache_request_timeout) == (0.5, 3)
    defaults = TaskOptions.from_values({}).remote
    assert defaults.remote_cache == "" and defaults.remote_cache_mode is RemoteMode.READ_WRITE
    assert (defaults.remote_cache_connect_timeout, defaults.remote_cache_request_timeout) == (2, 10)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("remote_cache", "ftp://ci:hunter2@cache.example/x", "--remote-cache: 'ftp://***@"),
        ("remote_cache_mode", "write", "--remote-cache-mode: unknown remote cache mode 'write'"),
        ("remote_cache_connect_timeout", "soon", "--remote-cache-connect-timeout: 'soon' is not"),
        ("remote_cache_request_timeout", "0", "--remote-cache-request-timeout: '0' is not"),
    ],
)
def test_a_bad_remote_cache_option_names_itself_and_a_fix_and_no_password(
    name: str, value: str, expected: str
) -> None:
    with pytest.raises(UserError) as raised:
        TaskOptions.from_values({name: value})
    message = str(raised.value)
    assert message.startswith(expected) and "fix:" in message
    assert "hunter2" not in message
