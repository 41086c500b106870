"""check_output_folders: one clear line, before any task runs, when we could not write; and
moved_outputs_note: where 0.1.0 left its reports, said once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from astest_tasks.config.project_config import ModeSettings, ProjectConfig, load_config
from astest_tasks.core.errors import UserError
from astest_tasks.plan.output_folders import check_output_folders, moved_outputs_note


def modes_of(root: Path) -> list[ModeSettings]:
    config = load_config(root / "as-test.config.json", root)
    return [config.base, *config.modes.values()]


def test_folders_that_do_not_exist_yet_are_fine(tmp_path: Path) -> None:
    check_output_folders(tmp_path, "as-test.config.json", ".as-test", modes_of(tmp_path))
    assert list(tmp_path.iterdir()) == [], "a check only: the folders are made when written"


def test_a_file_where_the_output_folder_goes_names_the_field_and_the_fix(tmp_path: Path) -> None:
    (tmp_path / ".as-test").write_text("in the way")
    with pytest.raises(UserError) as error:
        check_output_folders(tmp_path, "as-test.config.json", ".as-test", modes_of(tmp_path))
    message = str(error.value)
    assert message.startswith("as-test.config.json: output: cannot write into .as-test:")
    assert "is a file, not a folder" in message and "fix: move the file" in message


def test_a_file_inside_a_mode_folder_path_names_that_modes_field(tmp_path: Path) -> None:
    (tmp_path / "as-test.config.json").write_text(
        '{"modes": {"wasi": {"snapshotDir": "./snaps/wasi"}}}'
    )
    (tmp_path / "snaps").write_text("in the way")
    with pytest.raises(UserError, match=r"modes\.wasi\.snapshotDir: cannot write into snaps/wasi"):
        check_output_folders(tmp_path, "as-test.config.json", ".as-test", modes_of(tmp_path))


def test_a_folder_without_write_permission_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".as-test").mkdir()
    locked = str(tmp_path / ".as-test")
    real_access = os.access
    # Tests may run as root, for whom chmod does not lock anything: ask os.access instead.
    monkeypatch.setattr(
        os, "access", lambda path, mode: str(path) != locked and real_access(path, mode)
    )
    with pytest.raises(UserError, match="is not writable"):
        check_output_folders(tmp_path, "as-test.config.json", ".as-test", modes_of(tmp_path))


def _config_building_into_build(root: Path) -> ProjectConfig:
    (root / "as-test.config.json").write_text('{"outDir": "./build"}')
    return load_config(root / "as-test.config.json", root)


def _put(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")


def test_files_only_we_name_so_at_the_former_place_get_one_note(tmp_path: Path) -> None:
    config = _config_building_into_build(tmp_path)
    _put(tmp_path, "report-state.json", "cache/import-scan.json", "html/index.html")
    note = moved_outputs_note(tmp_path, config)
    assert note.startswith("note: astest-tasks now writes its reports and caches under .as-test/")
    assert "(report-state.json, cache/import-scan.json)" in note, "only what is surely ours"
    assert "\n" not in note


def test_no_note_once_reports_are_at_the_new_place(tmp_path: Path) -> None:
    config = _config_building_into_build(tmp_path)
    _put(tmp_path, "report-state.json", ".as-test/report.json")
    assert moved_outputs_note(tmp_path, config) == ""


def test_no_note_for_files_that_may_be_the_users_own(tmp_path: Path) -> None:
    config = _config_building_into_build(tmp_path)
    _put(tmp_path, "report.json", "junit.xml", "html/index.html", "cache/project.lock")
    assert moved_outputs_note(tmp_path, config) == ""


def test_no_note_where_the_place_did_not_change(tmp_path: Path) -> None:
    config = load_config(tmp_path / "as-test.config.json", tmp_path)  # defaults: .as-test/build
    _put(tmp_path, ".as-test/report-state.json")
    assert moved_outputs_note(tmp_path, config) == ""
