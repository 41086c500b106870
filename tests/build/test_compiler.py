"""The pure parts of the compiler: asc's argv, the reproducible command line, BuildRecord JSON."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from astest_tasks.build import compiler
from astest_tasks.build.build_request import BuildRequest
from astest_tasks.build.compile_route import SPAWN_EACH, CompileRoute, ServedCompile
from astest_tasks.build.compile_server import CompileOutput
from astest_tasks.build.compiler import (
    BUILD_RECORD_FORMAT,
    BuildRecord,
    asc_arguments,
    command_line,
    read_build_record,
    repro_command,
    write_build_record,
)
from astest_tasks.config.toolchain import Package, Toolchain
from astest_tasks.core.errors import UserError
from astest_tasks.model.results import SpecIdentity
from tests.fifo_guard import fifo_symlink, without_waiting

SPEC = "assembly/__tests__/math.spec.ts"
WASM = ".as-test/build/wasi/math.wasm"
SHIM_CONFIG = "./node_modules/@assemblyscript/wasi-shim/asconfig.json"
WASI_FLAGS = ["--use", "AS_TEST_WASI=1", "--config", SHIM_CONFIG]
BINDINGS_FLAGS = [
    "--use",
    "AS_TEST_BINDINGS=1",
    "--bindings",
    "raw",
    "--exportRuntime",
    "--exportStart",
    "_start",
]


def toolchain(root: Path, modules: Path | None = None, as_test: str = "1.0.7") -> Toolchain:
    modules = modules or root / "node_modules"

    def package(name: str, version: str) -> Package:
        return Package(name=name, root=modules / name, version=version)

    return Toolchain(
        node="/usr/local/bin/node",
        assemblyscript=package("assemblyscript", "0.28.14"),
        as_test=package("as-test", as_test),
        wasi_shim=package("@assemblyscript/wasi-shim", "0.1.0"),
    )


def request(
    root: Path, mode: str = "wasi", target: str = "wasi", **changes: object
) -> BuildRequest:
    base = BuildRequest(
        project_root=str(root),
        spec=SpecIdentity(SPEC, "math", mode, target),
        wasm_path=WASM,
        record_path=".as-test/build/wasi/math.build.json",
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def record(**changes: object) -> BuildRecord:
    base = BuildRecord(
        status="ok",
        spec=SPEC,
        mode="wasi",
        target="wasi",
        wasm=WASM,
        wasm_sha256="ab" * 32,
        command="node asc.js …",
        exit_code=0,
        diagnostics="",
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


# -- asc arguments ---------------------------------------------------------------------------------


def test_wasi_arguments_follow_as_test_order(tmp_path: Path) -> None:
    args = asc_arguments(request(tmp_path), toolchain(tmp_path), "out.wasm")
    assert args == [SPEC, "--transform", "as-test/transform", *WASI_FLAGS, "-o", "out.wasm"]


def test_user_args_come_after_the_spec_and_asconfig_before_target_flags(tmp_path: Path) -> None:
    req = request(
        tmp_path, build_args=("--optimize", "--runtime", "stub"), asconfig="asconfig.json"
    )
    args = asc_arguments(req, toolchain(tmp_path), "out.wasm")
    assert args == [
        SPEC,
        "--optimize",
        "--runtime",
        "stub",
        "--transform",
        "as-test/transform",
        "--config",
        "asconfig.json",
        *WASI_FLAGS,
        "-o",
        "out.wasm",
    ]


def test_bindings_arguments_use_raw_bindings_and_export_start(tmp_path: Path) -> None:
    req = request(tmp_path, target="bindings", mode="bindings", build_args=("-O3",))
    args = asc_arguments(req, toolchain(tmp_path), "b.wasm")
    assert args == [
        SPEC,
        "-O3",
        "--transform",
        "as-test/transform",
        *BINDINGS_FLAGS,
        "-o",
        "b.wasm",
    ]


def test_as_test_1_8_puts_its_transform_first_and_features_before_the_target_flags(
    tmp_path: Path,
) -> None:
    req = request(
        tmp_path,
        build_args=("--transform", "./transform", "-O3"),
        asconfig="asconfig.json",
        features=("simd", "threads"),
    )
    args = asc_arguments(req, toolchain(tmp_path, as_test="1.8.0"), "out.wasm")
    assert args == [
        SPEC,
        "--transform",
        "as-test/transform",
        "--transform",
        "./transform",
        "-O3",
        "--config",
        "asconfig.json",
        "--enable",
        "simd",
        "--enable",
        "threads",
        *WASI_FLAGS,
        "-o",
        "out.wasm",
    ]


def test_as_test_1_3_has_features_but_keeps_its_transform_after_the_user_args(
    tmp_path: Path,
) -> None:
    req = request(tmp_path, build_args=("-O3",), features=("simd",))
    args = asc_arguments(req, toolchain(tmp_path, as_test="1.3.0"), "out.wasm")
    assert args[:4] == [SPEC, "-O3", "--transform", "as-test/transform"]
    assert args[4:6] == ["--enable", "simd"]


def test_try_as_feature_adds_its_transform_and_flag_once(tmp_path: Path) -> None:
    tools = toolchain(tmp_path, as_test="1.8.0")
    args = asc_arguments(request(tmp_path, features=("try-as",)), tools, "o.wasm")
    assert args[1:7] == [
        *("--transform", "as-test/transform"),
        *("--transform", "try-as/transform"),
        *("--use", "AS_TEST_TRY_AS=1"),
    ]
    assert "--enable" not in args  # try-as is as-test's own feature, not asc's

    declared = request(tmp_path, features=("try-as",), build_args=("-t", "try-as/transform"))
    assert asc_arguments(declared, tools, "o.wasm").count("try-as/transform") == 1


def test_bindings_raw_is_always_forced_before_1_5_1(tmp_path: Path) -> None:
    req = request(tmp_path, target="bindings", mode="b", build_args=("--bindings", "esm"))
    args = asc_arguments(req, toolchain(tmp_path, as_test="1.5.0"), "b.wasm")
    assert args.count("--bindings") == 2


def test_bindings_raw_only_when_the_project_declares_none_from_1_5_1(tmp_path: Path) -> None:
    tools = toolchain(tmp_path, as_test="1.8.0")
    plain = asc_arguments(request(tmp_path, target="bindings", mode="b"), tools, "b.wasm")
    assert plain[3:] == [
        *("--use", "AS_TEST_BINDINGS=1", "--exportRuntime", "--exportStart", "_start"),
        *("--bindings", "raw", "-o", "b.wasm"),
    ]
    in_args = request(tmp_path, target="bindings", mode="b", build_args=("--bindings=esm",))
    assert "raw" not in asc_arguments(in_args, tools, "b.wasm")

    (tmp_path / "base.json").write_text('{"options": {"bindings": "esm"}}', encoding="utf-8")
    (tmp_path / "asconfig.json").write_text('{"extends": "./base.json"}', encoding="utf-8")
    in_asconfig = request(tmp_path, target="bindings", mode="b", asconfig="asconfig.json")
    assert "raw" not in asc_arguments(in_asconfig, tools, "b.wasm")


def test_shim_in_a_parent_node_modules_is_referenced_relatively(tmp_path: Path) -> None:
    project = tmp_path / "packages" / "app"
    args = asc_arguments(request(project), toolchain(project, tmp_path / "node_modules"), "o.wasm")
    config_at = args.index("AS_TEST_WASI=1") + 2
    assert args[config_at] == "../../node_modules/@assemblyscript/wasi-shim/asconfig.json"


# -- command lines ---------------------------------------------------------------------------------


def test_command_line_runs_asc_from_the_project_root(tmp_path: Path) -> None:
    argv = command_line(request(tmp_path), toolchain(tmp_path))
    assert argv[:2] == ["node", "node_modules/assemblyscript/bin/asc.js"]
    assert argv[2:] == [SPEC, "--transform", "as-test/transform", *WASI_FLAGS, "-o", WASM]


def test_repro_command_is_a_shell_line_with_sorted_quoted_env(tmp_path: Path) -> None:
    req = request(
        tmp_path,
        target="bindings",
        build_env={"Z_LAST": "1", "AS_TEST_COVERAGE_ENABLED": "0", "NOTE": "two words"},
    )
    line = repro_command(req, toolchain(tmp_path))
    assert line == (
        "AS_TEST_COVERAGE_ENABLED=0 NOTE='two words' Z_LAST=1 "
        "node node_modules/assemblyscript/bin/asc.js assembly/__tests__/math.spec.ts "
        "--transform as-test/transform --use AS_TEST_BINDINGS=1 --bindings raw "
        f"--exportRuntime --exportStart _start -o {WASM}"
    )


def test_repro_command_without_env_is_just_the_argv(tmp_path: Path) -> None:
    req = request(tmp_path, build_args=("--use", "NAME=a b"))
    line = repro_command(req, toolchain(tmp_path))
    assert line.startswith("node node_modules/assemblyscript/bin/asc.js ")
    assert "--use 'NAME=a b' --transform" in line


# -- custom build commands -------------------------------------------------------------------------


def test_custom_build_cmd_expands_placeholders_and_adds_no_defaults(tmp_path: Path) -> None:
    req = request(
        tmp_path,
        mode="fast",
        build_cmd="npx asc <file> -o <outFile> --use NAME=<name> --use T=<target> --use M=<mode>",
        build_args=("--optimize",),
    )
    expected_tail = [
        "--use",
        "NAME=math",
        "--use",
        "T=wasi",
        "--use",
        "M=fast",
        "--optimize",
    ]
    args = asc_arguments(req, toolchain(tmp_path), "scratch/math.wasm")
    assert args == ["npx", "asc", SPEC, "-o", "scratch/math.wasm", *expected_tail]
    assert command_line(req, toolchain(tmp_path)) == [
        "npx",
        "asc",
        SPEC,
        "-o",
        WASM,
        *expected_tail,
    ]
    assert "as-test/transform" not in args


def test_custom_build_cmd_mode_placeholder_is_empty_for_the_default_mode(tmp_path: Path) -> None:
    req = request(tmp_path, mode="default", build_cmd="build.sh <mode>x <name>")
    assert command_line(req, toolchain(tmp_path)) == ["build.sh", "x", "math"]


def test_custom_build_cmd_repro_line_carries_the_env(tmp_path: Path) -> None:
    req = request(tmp_path, build_cmd="make <outFile>", build_env={"CC": "asc"})
    assert repro_command(req, toolchain(tmp_path)) == f"CC=asc make {WASM}"


# -- build records ---------------------------------------------------------------------------------


def test_build_record_json_round_trip() -> None:
    original = record(status="failed", exit_code=1, diagnostics="ERROR TS2304: é", wasm_sha256="")
    text = original.to_json()
    assert json.loads(text)["format"] == BUILD_RECORD_FORMAT
    restored = BuildRecord.from_json(text)
    assert restored == original
    assert not restored.ok
    assert record().ok


def test_build_record_json_is_deterministic() -> None:
    assert record().to_json() == record().to_json()
    assert record().to_json().endswith("}\n")


def test_build_record_of_another_format_is_rejected() -> None:
    data = json.loads(record().to_json())
    data["format"] = BUILD_RECORD_FORMAT + 1
    with pytest.raises(ValueError, match="not a build record of this version"):
        BuildRecord.from_json(json.dumps(data))
    with pytest.raises(ValueError):
        BuildRecord.from_json("[]")


def test_build_record_file_round_trip_and_unreadable_files(tmp_path: Path) -> None:
    req = request(tmp_path)
    write_build_record(req, record())
    assert read_build_record(tmp_path, req.record_path) == record()
    assert read_build_record(tmp_path, "missing.json") is None
    (tmp_path / "garbage.json").write_text("{not json", encoding="utf-8")
    assert read_build_record(tmp_path, "garbage.json") is None
    (tmp_path / "extra.json").write_text('{"format": 1, "surprise": true}', encoding="utf-8")
    assert read_build_record(tmp_path, "extra.json") is None


def test_a_spawned_asc_gets_source_maps_so_its_launcher_does_not_restart_node(
    tmp_path: Path,
) -> None:
    tools = toolchain(tmp_path)
    argv = compiler._spawn_argv(request(tmp_path), tools, tmp_path / "out.wasm")
    assert argv[:3] == [tools.node, "--enable-source-maps", str(tools.asc_js)]
    assert argv[3:] == asc_arguments(request(tmp_path), tools, str(tmp_path / "out.wasm"))


def test_a_custom_build_cmd_with_an_unterminated_quote_is_a_user_error(tmp_path: Path) -> None:
    req = request(tmp_path, mode="fast", build_cmd="npx asc '<file> -o <outFile>")
    with pytest.raises(UserError, match=r"buildOptions\.cmd of mode 'fast'.*fix: close its quotes"):
        asc_arguments(req, toolchain(tmp_path), "out.wasm")


# A build record as the version before the records codec wrote it.
PREVIOUS_VERSION_RECORD = (
    '{\n  "command": "node asc.js \\u2026",\n  "diagnostics": "",\n  "exit_code": 0,\n'
    '  "format": 1,\n  "mode": "wasi",\n  "spec": "a.spec.ts",\n  "status": "ok",\n'
    '  "target": "wasi",\n  "wasm": "a.wasm",\n  "wasm_sha256": "' + "ab" * 32 + '"\n}\n'
)


def test_a_build_record_of_the_previous_version_loads_and_is_written_the_same() -> None:
    loaded = BuildRecord.from_json(PREVIOUS_VERSION_RECORD)
    assert loaded == record(spec="a.spec.ts", wasm="a.wasm")
    assert loaded.to_json() == PREVIOUS_VERSION_RECORD


def test_a_build_record_with_a_field_of_the_wrong_type_is_unreadable(tmp_path: Path) -> None:
    data = json.loads(PREVIOUS_VERSION_RECORD)
    data["exit_code"] = "0"
    with pytest.raises(ValueError, match=r"^exit_code: should be an integer, not a string$"):
        BuildRecord.from_json(json.dumps(data))
    (tmp_path / "wrong.json").write_text(json.dumps(data), encoding="utf-8")
    assert read_build_record(tmp_path, "wrong.json") is None


# -- what a compile left: only a whole module is recorded ok, on every route ----------------------

EMPTY_MODULE = b"\x00asm\x01\x00\x00\x00"


class _Route:
    """A compile route that leaves ``module`` where asc would have, as a compile ahead
    (``prefetched``) or a compile server does, and says asc exited 0."""

    def __init__(self, module: bytes, *, prefetched: bool) -> None:
        self.module = module
        self.prefetched = prefetched

    def take_prefetched(self, request: BuildRequest, into: Path) -> CompileOutput | None:
        if not self.prefetched:
            return None
        (into / Path(request.wasm_path).name).write_bytes(self.module)
        return CompileOutput(0, b"", b"")

    def compile_in_server(
        self, served: ServedCompile, cwd: Path, limit_s: float
    ) -> CompileOutput | None:
        Path(served.argv[served.argv.index("-o") + 1]).write_bytes(self.module)
        return CompileOutput(0, b"", b"")

    def compiled(self, request: BuildRequest) -> None:
        return None


def _spawned(module: bytes, root: Path) -> tuple[BuildRequest, CompileRoute]:
    """A custom build command, spawned as asc would be: it copies ``module`` and exits 0."""
    source = root / "module.bin"
    source.write_bytes(module)
    return request(root, build_cmd=f"cp {source} <outFile>"), SPAWN_EACH


def _every_route(module: bytes, root: Path) -> list[tuple[str, BuildRequest, CompileRoute]]:
    return [
        ("compiled ahead", request(root), _Route(module, prefetched=True)),
        ("compile server", request(root), _Route(module, prefetched=False)),
        ("spawned", *_spawned(module, root)),
    ]


@pytest.mark.parametrize(
    ("module", "problem"),
    [
        (b"", "it is empty (0 bytes)"),
        (EMPTY_MODULE + b"\x01\x04\x01\x60", "not a valid WebAssembly module"),
        (b"not wasm", "magic and version"),
    ],
)
def test_a_compile_that_exits_0_with_a_broken_module_is_a_failed_build_on_every_route(
    tmp_path: Path, module: bytes, problem: str
) -> None:
    for name, req, route in _every_route(module, tmp_path):
        earlier = tmp_path / req.wasm_path
        earlier.parent.mkdir(parents=True, exist_ok=True)
        earlier.write_bytes(EMPTY_MODULE)  # an earlier build's: stale once this one fails
        built = compiler.compile_spec(req, toolchain(tmp_path), route)
        assert (built.status, built.exit_code, built.wasm_sha256) == ("failed", 0, ""), name
        assert f"the compiler exited 0 but its {WASM} cannot be used" in built.diagnostics, name
        assert problem in built.diagnostics, name
        assert not earlier.exists(), f"{name}: a stale module must not look current"


def test_a_whole_module_is_recorded_ok_with_its_digest_on_every_route(tmp_path: Path) -> None:
    for name, req, route in _every_route(EMPTY_MODULE, tmp_path):
        built = compiler.compile_spec(req, toolchain(tmp_path), route)
        assert built.ok, name
        assert built.wasm_sha256 == hashlib.sha256(EMPTY_MODULE).hexdigest(), name
        assert (tmp_path / WASM).read_bytes() == EMPTY_MODULE, name


def test_a_compile_that_fails_keeps_the_compilers_message_as_it_was(tmp_path: Path) -> None:
    # The module check adds its reason only to a compile that claimed success.
    source = tmp_path / "fail.sh"
    source.write_text("#!/bin/sh\necho 'ERROR TS2304: Cannot find name x' >&2\nexit 1\n")
    source.chmod(0o755)
    built = compiler.compile_spec(
        request(tmp_path, build_cmd=f"{source} <outFile>"), toolchain(tmp_path), SPAWN_EACH
    )
    assert (built.status, built.exit_code) == ("failed", 1)
    assert built.diagnostics == "ERROR TS2304: Cannot find name x"


def test_a_build_record_linked_to_a_fifo_or_elsewhere_is_none_and_never_waited_on(
    tmp_path: Path,
) -> None:
    req = request(tmp_path)
    write_build_record(req, record())
    elsewhere = tmp_path / req.record_path
    fifo = fifo_symlink(tmp_path / "fifo.build.json")
    assert without_waiting(lambda: read_build_record(tmp_path, "fifo.build.json"), fifo) is None
    (tmp_path / "linked.build.json").symlink_to(elsewhere)
    assert read_build_record(tmp_path, "linked.build.json") is None
