"""The runtime choice: as-test's tokenizer, and which runtime a mode's command means."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.run.default_runtime import DefaultRuntime
from astest_tasks.run.external_runtime import ExternalRuntime
from astest_tasks.run.inprocess_runtime import InProcessRuntime
from astest_tasks.run.runtime_command import resolve_runtime, runtime_checks, tokenize_command
from astest_tasks.run.web_runtime import BrowserRuntime

FIELD = "as-test.config.json: runOptions.runtime.cmd"


@pytest.mark.parametrize(
    ("command", "tokens"),
    [
        ("wasmtime run <file>", ["wasmtime", "run", "<file>"]),
        ("  node   a.js  ", ["node", "a.js"]),
        ("run 'a b' c", ["run", "a b", "c"]),
        ("run 'a\\b'", ["run", "a\\b"]),
        ('run "a \\"b\\"" c', ["run", 'a "b"', "c"]),
        ("run ''", ["run", ""]),
        ("x'y z'w", ["xy zw"]),
    ],
)
def test_tokenizer_follows_as_test(command: str, tokens: list[str]) -> None:
    assert tokenize_command(command, FIELD) == tokens


def test_unterminated_quote_names_the_field() -> None:
    with pytest.raises(UserError, match=r"runtime\.cmd: .*unterminated ' quote"):
        tokenize_command("run 'oops", FIELD)


def test_no_command_means_the_in_process_default_runner(tmp_path: Path) -> None:
    runtime = resolve_runtime("", "bindings", tmp_path, FIELD)
    assert runtime == DefaultRuntime("bindings")


@pytest.mark.parametrize(
    "command",
    [
        "python ./.as-test/runners/mine.py <file>",
        "./.as-test/runners/mine.py",
        "python3 x/../.as-test/runners/mine.py",
        "python -u ./.as-test/runners/mine.py",
        "/opt/venv/bin/python3.12 .as-test/runners/mine.py",
    ],
)
def test_a_python_script_runs_in_process(tmp_path: Path, command: str) -> None:
    runtime = resolve_runtime(command, "wasi", tmp_path, FIELD)
    assert runtime == InProcessRuntime(".as-test/runners/mine.py")


def test_our_default_runner_named_by_its_command_is_the_default_of_its_target_only(
    tmp_path: Path,
) -> None:
    command = "python ./.as-test/runners/default.wasi.py <file>"
    assert resolve_runtime(command, "wasi", tmp_path, FIELD) == DefaultRuntime("wasi")
    # For a bindings mode it is a runner like any other: nothing renders it when missing.
    runtime = resolve_runtime(command, "bindings", tmp_path, FIELD)
    assert runtime == InProcessRuntime(".as-test/runners/default.wasi.py")


def test_the_stock_node_runner_runs_as_it_is_when_the_file_exists(tmp_path: Path) -> None:
    script = tmp_path / ".as-test/runners/default.wasi.js"
    script.parent.mkdir(parents=True)
    script.write_text("// as-test's runner")
    runtime = resolve_runtime(
        "node ./.as-test/runners/default.wasi.js <file>", "wasi", tmp_path, FIELD
    )
    assert isinstance(runtime, ExternalRuntime)
    assert runtime.scripts == (".as-test/runners/default.wasi.js",)
    assert runtime.argv(
        ".as-test/build/wasi/math.spec.wasm", "assembly/__tests__/math.spec.ts"
    ) == [
        "node",
        "./.as-test/runners/default.wasi.js",
        ".as-test/build/wasi/math.spec.wasm",
    ]


def test_a_missing_stock_node_runner_means_ours(tmp_path: Path) -> None:
    runtime = resolve_runtime(
        "node ./.as-test/runners/default.wasi.js <file>", "wasi", tmp_path, FIELD
    )
    assert runtime == DefaultRuntime("wasi")


def test_another_targets_stock_runner_is_aligned_to_this_target(tmp_path: Path) -> None:
    script = tmp_path / ".as-test/runners/default.bindings.js"
    script.parent.mkdir(parents=True)
    script.write_text("// as-test's runner")
    runtime = resolve_runtime(
        "node .as-test/runners/default.wasi.js <file>", "bindings", tmp_path, FIELD
    )
    assert isinstance(runtime, ExternalRuntime)
    assert runtime.tokens[1] == "./.as-test/runners/default.bindings.js"


def test_any_other_command_is_external_with_placeholders_per_spec(tmp_path: Path) -> None:
    runtime = resolve_runtime('my-runtime --name "<name>" <file>', "wasi", tmp_path, FIELD)
    assert isinstance(runtime, ExternalRuntime)
    assert runtime.scripts == ()
    assert runtime.argv("out/a b.wasm", "assembly/__tests__/a b.spec.ts") == [
        "my-runtime",
        "--name",
        "a b",
        "out/a b.wasm",
    ]


@pytest.mark.parametrize(
    "command", ["python -m http.server", "python3 tool <file>", "pythonista x.py"]
)
def test_other_python_commands_are_external(tmp_path: Path, command: str) -> None:
    assert isinstance(resolve_runtime(command, "wasi", tmp_path, FIELD), ExternalRuntime)


def test_a_script_used_as_the_executable_is_an_input_of_the_run(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools/run.sh").write_text("#!/bin/sh\n")
    (tmp_path / "tools/extra.js").write_text("")
    runtime = resolve_runtime(
        "./tools/run.sh --flag tools/extra.js <file>", "wasi", tmp_path, FIELD
    )
    assert isinstance(runtime, ExternalRuntime)
    assert runtime.scripts == ("tools/run.sh", "tools/extra.js")


def test_files_outside_the_project_are_not_inputs(tmp_path: Path) -> None:
    runtime = resolve_runtime("/bin/sh /etc/hostname <file>", "wasi", tmp_path, FIELD)
    assert isinstance(runtime, ExternalRuntime)
    assert runtime.scripts == ()


# -- the web target ------------------------------------------------------------------------------


def test_a_web_mode_without_a_command_runs_in_the_browser(tmp_path: Path) -> None:
    runtime = resolve_runtime("", "web", tmp_path, FIELD, "chromium")
    assert runtime == BrowserRuntime("chromium", headful=False)
    assert runtime.description == "browser chromium (not found)"  # unless located


def test_the_tasks_locate_the_browser_and_pass_headful_on(tmp_path: Path) -> None:
    chrome = tmp_path / "my-chrome"
    chrome.write_text("#!/bin/sh\n")
    chrome.chmod(chrome.stat().st_mode | stat.S_IXUSR)
    runtime = resolve_runtime("", "web", tmp_path, FIELD, str(chrome), headful=True, locate=True)
    assert runtime == BrowserRuntime(str(chrome), headful=True, executable=str(chrome))
    stock = "node ./.as-test/runners/default.web.js --headless <file>"
    asked = resolve_runtime(stock, "web", tmp_path, FIELD, headful=True)
    assert asked == BrowserRuntime("", headful=True), "--headful wins over the command's flag"
    missing = tmp_path / "no-chrome-here"
    unfound = resolve_runtime("", "web", tmp_path, FIELD, str(missing), locate=True)
    assert unfound == BrowserRuntime(str(missing), headful=False), "its runs say why"


def test_locating_concerns_only_the_browser(tmp_path: Path) -> None:
    assert resolve_runtime("", "wasi", tmp_path, FIELD, locate=True) == DefaultRuntime("wasi")


@pytest.mark.parametrize(
    ("command", "headful"),
    [
        ("node ./.as-test/runners/default.web.js --headless <file>", False),
        ("node ./.as-test/runners/default.web.js <file>", True),  # as-test opens a window
    ],
)
def test_as_test_stock_web_command_runs_in_our_browser(
    tmp_path: Path, command: str, headful: bool
) -> None:
    assert resolve_runtime(command, "web", tmp_path, FIELD) == BrowserRuntime("", headful)


def test_a_python_runner_for_a_web_mode_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="web specs run in the browser"):
        resolve_runtime("python ./my-runner.py <file>", "web", tmp_path, FIELD)


def test_another_command_for_a_web_mode_is_external(tmp_path: Path) -> None:
    runtime = resolve_runtime("./my-browser-runner.sh <file>", "web", tmp_path, FIELD)
    assert isinstance(runtime, ExternalRuntime)


# -- what astest doctor reports of a mode's runtime ------------------------------------------------


def test_each_runtime_says_what_it_misses_with_the_fix(tmp_path: Path) -> None:
    missing_runner = InProcessRuntime("runners/gone.py").doctor_checks(tmp_path, "mode wasi")
    assert [(c.level.value, c.fix) for c in missing_runner] == [
        ("ERROR", "create it, or remove runOptions.runtime.cmd to use the default runner")
    ]
    (default,) = DefaultRuntime("wasi").doctor_checks(tmp_path, "mode wasi")
    assert default.level.value == "OK" and "made from its template" in default.detail
    external = ExternalRuntime("no-such-runtime-xyz <file>", ("no-such-runtime-xyz", "<file>"), ())
    (not_found,) = external.doctor_checks(tmp_path, "mode wasi")
    assert not_found.level.value == "ERROR" and "was not found on PATH" in not_found.detail


def test_the_doctor_asks_the_runtime_that_claims_the_command(tmp_path: Path) -> None:
    checks = runtime_checks("runners/gone.py", "wasi", tmp_path, FIELD, "", "mode wasi")
    assert [c.detail for c in checks] == [
        "runtime: the runner script runners/gone.py does not exist"
    ]
    (error,) = runtime_checks("python ./runner.py <file>", "web", tmp_path, FIELD, "", "mode web")
    assert error.level.value == "ERROR" and error.scope == "mode web"
    assert "web specs run in the browser" in error.detail
    assert error.fix == "remove the command to use the browser, or change the mode's target"
