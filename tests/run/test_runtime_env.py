"""The AS_TEST_* variables a runtime sees (docs/design/host-contract.md §5.2)."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.run.runtime_env import bindings_kind, runtime_variables


def test_wasi_gets_target_and_wasm_path(tmp_path: Path) -> None:
    assert runtime_variables("wasi", "out/a.spec.wasm", tmp_path) == {
        "AS_TEST_RUNTIME_TARGET": "wasi",
        "AS_TEST_WASM_PATH": "out/a.spec.wasm",
    }


def test_bindings_with_a_raw_helper_gets_kind_and_helper_path(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out/a.spec.js").write_text("export async function instantiate(module, imports) {}")
    assert runtime_variables("bindings", "out/a.spec.wasm", tmp_path) == {
        "AS_TEST_RUNTIME_TARGET": "bindings",
        "AS_TEST_WASM_PATH": "out/a.spec.wasm",
        "AS_TEST_BINDINGS_KIND": "raw",
        "AS_TEST_HELPER_PATH": "out/a.spec.js",
    }


def test_bindings_kind_detection(tmp_path: Path) -> None:
    helper = tmp_path / "h.js"
    assert bindings_kind(helper) == "none"
    helper.write_text(
        'export const {memory} = await (async url => instantiate(await x(new URL("a.wasm", '
        "import.meta.url))))"
    )
    assert bindings_kind(helper) == "esm"
    helper.write_text("module.exports = {}")
    assert bindings_kind(helper) == "unknown"
