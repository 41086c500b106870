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


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "wasi").mkdir(parents=True)
    (outside / "index.html").write_text("the user's own page")
    return outside


def _check(root: Path) -> None:
    check_output_folders(root, "as-test.config.json", ".as-test", modes_of(root))


@pytest.mark.parametrize(
    "link", [".as-test", ".as-test/build", ".as-test/build/wasi", ".as-test/snapshots/deep"]
)
def test_a_symbolic_link_to_a_folder_on_the_way_or_inside_is_refused_with_the_fix(
    tmp_path: Path, link: str
) -> None:
    root = tmp_path / "project"
    (root / link).parent.mkdir(parents=True)
    (root / link).symlink_to(_outside(tmp_path), target_is_directory=True)
    with pytest.raises(UserError) as error:
        _check(root)
    message = str(error.value)
    assert f"{link} is a symbolic link out of the project" in message
    assert message.startswith("as-test.config.json: output: will not write into .as-test:")
    assert f"fix: delete the link (rm {link})" in message
    assert message.endswith("or, to keep our files on another disk, point output at a folder there")
    assert (tmp_path / "outside/index.html").read_text() == "the user's own page"


def test_links_to_files_and_a_linked_way_to_the_project_itself_are_fine(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / ".as-test/build").mkdir(parents=True)
    (tmp_path / "theirs.json").write_text("{}")
    # replaced by our atomic writes, and removed by doit clean, never written through
    (real / ".as-test/report.json").symlink_to(tmp_path / "theirs.json")
    (tmp_path / "via").symlink_to(real, target_is_directory=True)
    _check(tmp_path / "via")
    _check(real)
    assert (real / ".as-test/report.json").is_symlink(), "a check only: nothing is changed"


def test_a_link_that_stays_inside_the_project_is_followed(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "assembly/shared-snapshots").mkdir(parents=True)
    (root / ".as-test").mkdir()
    (root / ".as-test/snapshots").symlink_to(
        root / "assembly/shared-snapshots", target_is_directory=True
    )
    _check(root)
    assert (root / ".as-test/snapshots").is_symlink()


def test_node_modules_and_git_are_not_searched_even_under_a_folder_we_write(
    tmp_path: Path,
) -> None:
    # pnpm and workspaces link packages in; a snapshotDir of "." holds the whole project.
    root = tmp_path / "project"
    (root / "node_modules").mkdir(parents=True)
    (root / "node_modules/as-test").symlink_to(_outside(tmp_path), target_is_directory=True)
    (root / "as-test.config.json").write_text('{"snapshotDir": "."}')
    _check(root)
    (root / "elsewhere").symlink_to(tmp_path / "outside", target_is_directory=True)
    with pytest.raises(UserError, match=r"snapshotDir: will not write into \.: elsewhere is a"):
        _check(root)


def test_a_folder_the_config_names_outside_the_project_is_its_choice(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "elsewhere").symlink_to(_outside(tmp_path), target_is_directory=True)
    (root / "as-test.config.json").write_text('{"outDir": "../elsewhere"}')
    _check(root)
    (root / "inside").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (root / "as-test.config.json").write_text('{"outDir": "./inside"}')
    with pytest.raises(UserError, match=r"outDir: will not write into inside/default: inside is"):
        _check(root)


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
