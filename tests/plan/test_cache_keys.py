"""Cache-key inputs: the asconfig ``extends`` chain, and what goes into a build key."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from astest_tasks.build.imports import ImportScan
from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.config.discovery import Spec
from astest_tasks.config.project_config import load_config
from astest_tasks.config.toolchain import Package, Toolchain
from astest_tasks.config.toolchain import find_package as find_package_now
from astest_tasks.plan import cache_keys
from astest_tasks.plan.cache_keys import asconfig_chain, build_key


def test_asconfig_chain_follows_extends_transitively(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "base.json").write_text(json.dumps({"options": {}}))
    (tmp_path / "configs" / "mid.json").write_text(json.dumps({"extends": "./base.json"}))
    (tmp_path / "asconfig.json").write_text(json.dumps({"extends": "configs/mid.json"}))
    chain = asconfig_chain(tmp_path, "asconfig.json")
    assert chain == [
        str(tmp_path / "asconfig.json"),
        str(tmp_path / "configs" / "mid.json"),
        str(tmp_path / "configs" / "base.json"),
    ]


def test_asconfig_chain_stops_at_cycles_missing_files_and_bad_json(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps({"extends": "./b.json"}))
    (tmp_path / "b.json").write_text(json.dumps({"extends": "./a.json"}))
    assert asconfig_chain(tmp_path, "a.json") == [
        str(tmp_path / "a.json"),
        str(tmp_path / "b.json"),
    ]
    assert asconfig_chain(tmp_path, "missing.json") == []
    (tmp_path / "bad.json").write_text("{")
    assert asconfig_chain(tmp_path, "bad.json") == [str(tmp_path / "bad.json")]


def test_features_are_part_of_the_build_key(tmp_path: Path) -> None:
    (tmp_path / "as-test.config.json").write_text('{"features": ["simd"]}', encoding="utf-8")
    mode = load_config(Path("as-test.config.json"), tmp_path, AsTestRules.parse("1.8.0")).base
    spec = Spec(path="assembly/__tests__/a.spec.ts", spec_id="a")
    package = Package(name="x", root=tmp_path, version="1")
    tools = Toolchain(node="node", assemblyscript=package, as_test=package, wasi_shim=None)

    with_simd = build_key(mode, spec, tools)
    without = build_key(replace(mode, features=()), spec, tools)

    assert with_simd["features"] == ["simd"]
    assert with_simd != without


def test_a_build_depends_on_the_manifest_of_every_package_its_spec_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The toolchain's packages are taken as the call found them; any other is looked for."""
    for name in ("as-test", "assemblyscript", "other-lib"):
        (tmp_path / "node_modules" / name).mkdir(parents=True)
        (tmp_path / "node_modules" / name / "package.json").write_text('{"version": "1.0.0"}')
    mode = load_config(Path("as-test.config.json"), tmp_path, AsTestRules.parse("1.8.0")).base
    assemblyscript, as_test = (find_package_now(tmp_path, n) for n in ("assemblyscript", "as-test"))
    assert assemblyscript is not None and as_test is not None
    tools = Toolchain(node="node", assemblyscript=assemblyscript, as_test=as_test, wasi_shim=None)
    looked_for: list[str] = []

    def find(root: Path, name: str) -> Package | None:
        looked_for.append(name)
        return find_package_now(root, name)

    monkeypatch.setattr(cache_keys, "find_package", find)
    scan = ImportScan(local_files=("a.spec.ts",), packages=("as-test", "other-lib", "absent"))
    deps = cache_keys.build_file_deps(tmp_path, replace(mode, target="bindings"), scan, tools)
    manifests = [
        str(tmp_path / "node_modules" / n / "package.json")
        for n in ("as-test", "assemblyscript", "other-lib")
    ]
    assert deps == ["a.spec.ts", *sorted(manifests)]
    assert looked_for == ["absent", "other-lib"]


def test_a_wasi_build_depends_on_the_shims_manifest_and_asconfig_every_time(
    tmp_path: Path,
) -> None:
    """The toolchain's files are worked out once and kept: every build, and a later one of the
    same process, depends on the same files, and a bindings build on none of the shim's."""
    for name in ("as-test", "assemblyscript", "@assemblyscript/wasi-shim"):
        (tmp_path / "node_modules" / name).mkdir(parents=True)
        (tmp_path / "node_modules" / name / "package.json").write_text('{"version": "1.0.0"}')
    mode = load_config(Path("as-test.config.json"), tmp_path, AsTestRules.parse("1.8.0")).base
    assemblyscript, as_test, shim = (
        find_package_now(tmp_path, n)
        for n in ("assemblyscript", "as-test", "@assemblyscript/wasi-shim")
    )
    assert assemblyscript is not None and as_test is not None and shim is not None
    tools = Toolchain(node="node", assemblyscript=assemblyscript, as_test=as_test, wasi_shim=shim)
    scan = ImportScan(local_files=("a.spec.ts",), packages=("as-test",))
    modules = tmp_path / "node_modules"
    wasi = [
        str(modules / "@assemblyscript/wasi-shim/asconfig.json"),
        str(modules / "@assemblyscript/wasi-shim/package.json"),
        str(modules / "as-test/package.json"),
        str(modules / "assemblyscript/package.json"),
    ]
    for _ in range(2):
        assert cache_keys.build_file_deps(tmp_path, replace(mode, target="wasi"), scan, tools) == [
            "a.spec.ts",
            *sorted(wasi),
        ]
    bindings = cache_keys.build_file_deps(tmp_path, replace(mode, target="bindings"), scan, tools)
    assert bindings == ["a.spec.ts", *sorted(wasi[2:])]
