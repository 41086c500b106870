"""Remote keys travel: the same inputs give the same key wherever the project is checked out,
and any change of an input gives another key (a wrong hit is worse than none)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from astest_tasks.remote.portable_keys import relative_input_digests, remote_key

TOOLCHAIN = {"assemblyscript": "0.28.20", "as-test": "1.8.0", "astest-tasks": "1.2.3"}
CONFIG = {"mode": "default", "flags": ["--optimize"]}


def make_project(root: Path) -> list[Path]:
    files = {
        "assembly/__tests__/math.spec.ts": "describe('math', () => {});",
        "assembly/math.ts": "export function add(a: i32, b: i32): i32 { return a + b; }",
        "asconfig.json": '{"options": {}}',
        "package.json": '{"name": "demo"}',
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return [root / name for name in files]


def key_of(root: Path, files: list[Path], **changes: object) -> str:
    parts: dict[str, object] = {
        "kind": "build",
        "inputs": relative_input_digests(root, files),
        "toolchain": TOOLCHAIN,
        "config": CONFIG,
    }
    parts.update(changes)
    return remote_key(**parts)  # type: ignore[arg-type]


def test_two_clones_at_different_paths_share_their_keys(tmp_path: Path) -> None:
    first = tmp_path / "alice" / "work" / "project"
    first.mkdir(parents=True)
    files = make_project(first)
    second = tmp_path / "ci-runner" / "_work" / "clone"
    shutil.copytree(first, second)
    moved = [second / path.relative_to(first) for path in files]
    assert key_of(first, files) == key_of(second, moved)
    # the order in which the inputs were found does not matter either
    assert key_of(first, files) == key_of(second, list(reversed(moved)))


@pytest.mark.parametrize(
    "change",
    [
        {"kind": "run"},
        {"toolchain": {**TOOLCHAIN, "assemblyscript": "0.28.14"}},
        {"toolchain": {**TOOLCHAIN, "astest-tasks": "1.2.4"}},
        {"config": {**CONFIG, "flags": []}},
        {"config": {**CONFIG, "mode": "wasi"}},
    ],
)
def test_changing_the_kind_toolchain_or_config_changes_the_key(
    tmp_path: Path, change: dict[str, object]
) -> None:
    files = make_project(tmp_path)
    assert key_of(tmp_path, files) != key_of(tmp_path, files, **change)


def test_changing_renaming_adding_or_dropping_an_input_changes_the_key(tmp_path: Path) -> None:
    files = make_project(tmp_path)
    before = key_of(tmp_path, files)
    keys = {before}
    (tmp_path / "assembly/math.ts").write_text("export const x = 1;", encoding="utf-8")
    keys.add(key_of(tmp_path, files))
    (tmp_path / "assembly/math.ts").rename(tmp_path / "assembly/maths.ts")
    renamed = [tmp_path / "assembly/maths.ts" if p.name == "math.ts" else p for p in files]
    keys.add(key_of(tmp_path, renamed))
    keys.add(key_of(tmp_path, renamed[:-1]))
    (tmp_path / "extra.json").write_text("{}", encoding="utf-8")
    keys.add(key_of(tmp_path, [*renamed, tmp_path / "extra.json"]))
    assert len(keys) == 5


def test_the_key_format_version_is_part_of_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = make_project(tmp_path)
    before = key_of(tmp_path, files)
    monkeypatch.setattr("astest_tasks.remote.portable_keys.REMOTE_KEY_FORMAT", 2)
    assert key_of(tmp_path, files) != before


def test_an_input_outside_the_project_is_refused_by_name(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "elsewhere.ts"
    outside.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"elsewhere\.ts lies outside the project"):
        relative_input_digests(project, [outside])
    with pytest.raises(ValueError, match="not a relative posix path"):
        remote_key("build", {"/abs/math.ts": "0" * 64}, TOOLCHAIN, CONFIG)
