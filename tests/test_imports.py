"""scan_imports: a spec's local files, followed transitively, and the npm packages it imports."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from astest_tasks.imports import ImportScan, ImportScanCache, package_name, scan_imports

SPEC = "assembly/__tests__/math.spec.ts"


def write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def test_relative_imports_are_followed_transitively(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            SPEC: "import { a } from \"./a\";\nimport { b } from '../lib/b';\n",
            "assembly/__tests__/a.ts": 'import { c } from "../lib/c";\n',
            "assembly/lib/b.ts": "export const b = 1;\n",
            "assembly/lib/c.ts": 'import { d } from "./deep/d";\n',
            "assembly/lib/deep/d.ts": "export const d = 4;\n",
            "assembly/lib/unused.ts": "export const unused = 0;\n",
        },
    )
    assert scan_imports(tmp_path, SPEC).local_files == (
        "assembly/__tests__/a.ts",
        SPEC,
        "assembly/lib/b.ts",
        "assembly/lib/c.ts",
        "assembly/lib/deep/d.ts",
    )


def test_folder_import_resolves_to_its_index(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            SPEC: 'import { util } from "../util";\n',
            "assembly/util/index.ts": 'export * from "./strings";\n',
            "assembly/util/strings.ts": "export const s = '';\n",
        },
    )
    assert scan_imports(tmp_path, SPEC).local_files == (
        SPEC,
        "assembly/util/index.ts",
        "assembly/util/strings.ts",
    )


def test_file_wins_over_folder_index_and_explicit_ts_extension_works(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            SPEC: 'import { x } from "./x";\nimport { y } from "./y.ts";\n',
            "assembly/__tests__/x.ts": "",
            "assembly/__tests__/x/index.ts": "",
            "assembly/__tests__/y.ts": "",
        },
    )
    assert scan_imports(tmp_path, SPEC).local_files == (
        SPEC,
        "assembly/__tests__/x.ts",
        "assembly/__tests__/y.ts",
    )


def test_export_from_and_side_effect_imports_count(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            SPEC: 'export * from "./reexported";\nimport "./side-effect";\n'
            "export { thing } from './named';\n",
            "assembly/__tests__/reexported.ts": "",
            "assembly/__tests__/side-effect.ts": "",
            "assembly/__tests__/named.ts": "",
        },
    )
    assert set(scan_imports(tmp_path, SPEC).local_files) == {
        SPEC,
        "assembly/__tests__/reexported.ts",
        "assembly/__tests__/side-effect.ts",
        "assembly/__tests__/named.ts",
    }


def test_import_cycles_terminate_and_list_each_file_once(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            SPEC: 'import { a } from "./a";\n',
            "assembly/__tests__/a.ts": 'import { b } from "./b";\n',
            "assembly/__tests__/b.ts": 'import { a } from "./a";\nimport "./math.spec";\n',
        },
    )
    assert scan_imports(tmp_path, SPEC).local_files == (
        "assembly/__tests__/a.ts",
        "assembly/__tests__/b.ts",
        SPEC,
    )


def test_missing_import_targets_are_ignored(tmp_path: Path) -> None:
    write(tmp_path, {SPEC: 'import { gone } from "./gone";\nimport "../nowhere/index";\n'})
    assert scan_imports(tmp_path, SPEC) == ImportScan(local_files=(SPEC,), packages=())


def test_missing_spec_still_lists_itself(tmp_path: Path) -> None:
    assert scan_imports(tmp_path, SPEC) == ImportScan(local_files=(SPEC,), packages=())


def test_bare_packages_are_collected_with_scoped_names(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            SPEC: 'import { expect } from "as-test";\n'
            'import { JSON } from "json-as/assembly";\n'
            'import { x } from "@scope/pkg/deep/file";\n'
            'import "./helper";\n',
            "assembly/__tests__/helper.ts": 'import { y } from "@other/lib";\nimport "as-test";\n',
        },
    )
    assert scan_imports(tmp_path, SPEC).packages == (
        "@other/lib",
        "@scope/pkg",
        "as-test",
        "json-as",
    )


def test_lib_imports_are_not_packages(tmp_path: Path) -> None:
    write(tmp_path, {SPEC: 'import { memory } from "~lib/memory";\nimport "~lib/rt/itcms";\n'})
    assert scan_imports(tmp_path, SPEC).packages == ()


def test_package_name_strips_subpaths() -> None:
    assert package_name("json-as") == "json-as"
    assert package_name("json-as/assembly/index") == "json-as"
    assert package_name("@assemblyscript/wasi-shim/assembly") == "@assemblyscript/wasi-shim"
    assert package_name("@scope/pkg") == "@scope/pkg"


def test_the_scan_cache_does_not_read_unchanged_files_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {SPEC: 'import { a } from "../lib/a";\n', "assembly/lib/a.ts": "export {};\n"})
    age(tmp_path, SPEC, "assembly/lib/a.ts")
    cache_file = tmp_path / ".as-test/cache/import-scan.json"
    cache = ImportScanCache(cache_file)
    first = scan_imports(tmp_path, SPEC, cache)
    cache.save()
    reloaded = ImportScanCache(cache_file)  # as the next doit call does

    def refuse(*_args: object, **_kwargs: object) -> str:
        raise AssertionError("an unchanged file was read again")

    with monkeypatch.context() as patched:
        patched.setattr(Path, "read_text", refuse)
        assert scan_imports(tmp_path, SPEC, reloaded) == first
    assert first.local_files == ("assembly/__tests__/math.spec.ts", "assembly/lib/a.ts")


def age(root: Path, *paths: str) -> None:
    """Date files a minute back: the cache trusts only files older than itself (racy rule)."""
    past = time.time() - 60
    for path in paths:
        os.utime(root / path, (past, past))


def test_a_file_changed_around_the_cache_write_is_read_again(tmp_path: Path) -> None:
    write(tmp_path, {SPEC: 'import { a } from "./aa";\n'})
    cache_file = tmp_path / "scan.json"
    cache = ImportScanCache(cache_file)
    scan_imports(tmp_path, SPEC, cache)
    cache.save()
    # Same size, same mtime as when it was cached: only the racy rule catches the edit.
    stamp = (tmp_path / SPEC).stat()
    write(tmp_path, {SPEC: 'import { b } from "./bb";\n', "assembly/__tests__/bb.ts": ""})
    os.utime(tmp_path / SPEC, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    rescanned = scan_imports(tmp_path, SPEC, ImportScanCache(cache_file))
    assert rescanned.local_files == ("assembly/__tests__/bb.ts", SPEC)


def test_the_scan_cache_rescans_a_changed_file_and_sees_new_modules(tmp_path: Path) -> None:
    write(tmp_path, {SPEC: 'import { a } from "../lib/a";\n'})
    cache_file = tmp_path / "scan.json"
    cache = ImportScanCache(cache_file)
    assert scan_imports(tmp_path, SPEC, cache).local_files == (SPEC,)
    cache.save()
    # The module appears later: the spec is unchanged, but resolution sees the new file.
    write(tmp_path, {"assembly/lib/a.ts": 'import { b } from "./b";\n', "assembly/lib/b.ts": ""})
    assert scan_imports(tmp_path, SPEC, ImportScanCache(cache_file)).local_files == (
        SPEC,
        "assembly/lib/a.ts",
        "assembly/lib/b.ts",
    )
    # The spec changes (size differs): it is read again.
    write(tmp_path, {SPEC: 'import { x } from "json-as/assembly";\n'})
    changed = scan_imports(tmp_path, SPEC, ImportScanCache(cache_file))
    assert changed == ImportScan(local_files=(SPEC,), packages=("json-as",))


def test_a_corrupt_scan_cache_is_ignored(tmp_path: Path) -> None:
    write(tmp_path, {SPEC: 'import { a } from "as-test";\n'})
    cache_file = tmp_path / "scan.json"
    cache_file.write_text("{not json")
    cache = ImportScanCache(cache_file)
    assert scan_imports(tmp_path, SPEC, cache).packages == ("as-test",)
    cache.save()
    assert '"format": 1' in cache_file.read_text()
