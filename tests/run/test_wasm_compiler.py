"""Tests for astest_tasks.run.wasm_compiler: Winch for light specs, Cranelift for heavy ones."""

from __future__ import annotations

import pytest

from astest_tasks.run.wasm_compiler import (
    HEAVY_RUN_S,
    SWITCH_VARIABLE,
    CompilerChoiceError,
    WasmCompiler,
    compiler_for,
    compiler_for_hot_code,
    note_run,
    other_compiler,
)


@pytest.fixture
def on_x86_64(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("platform.machine", lambda: "x86_64")


@pytest.mark.usefixtures("on_x86_64")
def test_a_spec_never_run_or_light_is_compiled_with_winch() -> None:
    assert compiler_for(None, {}) is WasmCompiler.WINCH
    assert compiler_for(HEAVY_RUN_S / 10, {}) is WasmCompiler.WINCH


@pytest.mark.usefixtures("on_x86_64")
def test_a_spec_whose_last_run_was_heavy_is_compiled_with_cranelift() -> None:
    assert compiler_for(HEAVY_RUN_S, {}) is WasmCompiler.CRANELIFT
    assert compiler_for(12.0, {}) is WasmCompiler.CRANELIFT


@pytest.mark.usefixtures("on_x86_64")
@pytest.mark.parametrize(
    ("value", "previous_run_s", "expected"),
    [
        ("cranelift", None, WasmCompiler.CRANELIFT),
        (" Cranelift ", None, WasmCompiler.CRANELIFT),
        ("winch", 12.0, WasmCompiler.WINCH),
        ("auto", 12.0, WasmCompiler.CRANELIFT),
        ("", None, WasmCompiler.WINCH),
    ],
)
def test_the_switch_picks_one_compiler_for_every_spec(
    value: str, previous_run_s: float | None, expected: WasmCompiler
) -> None:
    assert compiler_for(previous_run_s, {SWITCH_VARIABLE: value}) is expected


def test_winch_is_not_used_where_wasmtime_does_not_support_it_fully(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("platform.machine", lambda: "aarch64")
    assert compiler_for(None, {}) is WasmCompiler.CRANELIFT
    assert compiler_for(None, {SWITCH_VARIABLE: "winch"}) is WasmCompiler.CRANELIFT


def test_a_value_naming_no_compiler_says_which_values_work() -> None:
    with pytest.raises(CompilerChoiceError) as caught:
        compiler_for(None, {SWITCH_VARIABLE: "v8"})
    message = str(caught.value)
    assert f"{SWITCH_VARIABLE}='v8'" in message
    assert "auto" in message and "winch" in message and "cranelift" in message


@pytest.mark.usefixtures("on_x86_64")
def test_a_spec_never_run_is_judged_by_the_last_spec_run_in_this_process() -> None:
    assert compiler_for(None, {}) is WasmCompiler.WINCH  # the first of all
    note_run(HEAVY_RUN_S * 3)
    assert compiler_for(None, {}) is WasmCompiler.CRANELIFT
    assert compiler_for(HEAVY_RUN_S / 10, {}) is WasmCompiler.WINCH, "its own history first"
    note_run(HEAVY_RUN_S / 10)
    assert compiler_for(None, {}) is WasmCompiler.WINCH


@pytest.mark.usefixtures("on_x86_64")
def test_code_run_thousands_of_times_is_compiled_by_cranelift_unless_the_switch_says() -> None:
    assert compiler_for_hot_code({}) is WasmCompiler.CRANELIFT
    assert compiler_for_hot_code({SWITCH_VARIABLE: "winch"}) is WasmCompiler.WINCH


@pytest.mark.usefixtures("on_x86_64")
def test_a_run_out_of_stack_is_run_again_under_the_other_compiler() -> None:
    assert other_compiler(WasmCompiler.WINCH, {}) is WasmCompiler.CRANELIFT
    assert other_compiler(WasmCompiler.CRANELIFT, {}) is WasmCompiler.WINCH
    assert other_compiler(None, {}) is None, "not run by wasmtime"


@pytest.mark.usefixtures("on_x86_64")
@pytest.mark.parametrize("value", ["winch", "cranelift", "v8"])
def test_with_one_compiler_picked_there_is_no_other(value: str) -> None:
    assert other_compiler(WasmCompiler.WINCH, {SWITCH_VARIABLE: value}) is None


def test_where_winch_does_not_run_there_is_no_other(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("platform.machine", lambda: "aarch64")
    assert other_compiler(WasmCompiler.CRANELIFT, {}) is None
