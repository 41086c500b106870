"""build_check.py: whether a run (or a fuzz campaign) can use its build, in the same words."""

from __future__ import annotations

from pathlib import Path

from astest_tasks.build.build_check import UnusableBuild, check_build
from astest_tasks.build.compiler import BuildRecord
from astest_tasks.core.atomic import write_text_atomic

RECORD = ".as-test/build/wasi/math.build.json"


def _record(status: str, diagnostics: str = "", command: str = "") -> BuildRecord:
    return BuildRecord(
        status=status,
        spec="assembly/__tests__/math.spec.ts",
        mode="wasi",
        target="wasi",
        wasm=".as-test/build/wasi/math.spec.wasm",
        wasm_sha256="0" * 64,
        command=command,
        exit_code=0 if status == "ok" else 1,
        diagnostics=diagnostics,
    )


def test_a_missing_record_says_the_build_never_ran_and_how_to_run_it(tmp_path: Path) -> None:
    found = check_build(tmp_path, RECORD, "doit astest:build:wasi:math")
    assert found == UnusableBuild(
        "not built",
        f"no build record at {RECORD}; build it with `doit astest:build:wasi:math`",
        "",
    )


def test_a_failed_compile_shows_the_compilers_message_and_the_command_to_reproduce_it(
    tmp_path: Path,
) -> None:
    command = "npx asc assembly/__tests__/math.spec.ts --target wasi"
    failed = _record("failed", "ERROR TS2304: Cannot find name", command)
    write_text_atomic(tmp_path / RECORD, failed.to_json())
    found = check_build(tmp_path, RECORD, "doit astest:build:wasi:math")
    assert isinstance(found, UnusableBuild)
    assert found.error == "build failed" and found.command == command
    assert found.details.startswith("ERROR TS2304: Cannot find name\n\nreproduce with:\n  cd ")
    assert found.details.endswith(f" && {command}")


def test_a_good_build_is_its_record(tmp_path: Path) -> None:
    write_text_atomic(tmp_path / RECORD, _record("ok").to_json())
    found = check_build(tmp_path, RECORD, "doit astest:build:wasi:math")
    assert isinstance(found, BuildRecord) and found.ok
