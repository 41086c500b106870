"""The `astest` command line."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from astest_tasks.cli import main
from tests.fresh_python import python


def test_init_lists_created_then_skipped_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path)]) == 0
    first = capsys.readouterr().out
    assert "created  dodo.py" in first
    assert main(["init", str(tmp_path)]) == 0
    second = capsys.readouterr().out
    assert "skipped  dodo.py (exists; left unchanged)" in second
    assert "created  " not in second


def test_outside_a_project_astest_says_how_to_start_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([]) == 3
    error = capsys.readouterr().err
    assert error.startswith("ERROR: no as-test project in ") and "astest init" in error
    assert not (tmp_path / ".doit.db").exists(), "nothing written"


def test_merge_of_nothing_readable_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["merge", str(tmp_path / "absent.json")]) == 3
    assert capsys.readouterr().err.startswith("ERROR: ")


def test_python_dash_m_runs_the_same_command(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "astest_tasks", "init", str(tmp_path / "p")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "p" / "as-test.config.json").is_file()


def test_init_of_another_folder_says_to_go_there_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "my app"]) == 0
    assert capsys.readouterr().out.endswith("\nnext: cd 'my app', npm install, then doit\n")
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    assert main(["init", "."]) == 0
    assert capsys.readouterr().out.endswith("\nnext: npm install, then doit\n")


def test_both_commands_print_the_installed_version(tmp_path: Path) -> None:
    installed = version("astest-tasks")
    (tmp_path / "dodo.py").write_text("from astest_tasks import task_astest  # noqa: F401\n")
    for argv in (["-m", "astest_tasks", "--version"], ["-m", "doit", "astest", "--version"]):
        done = python(argv, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"astest-tasks {installed}" in done.stdout.splitlines(), done.stdout


def test_the_version_loads_none_of_the_doctor_s_flags() -> None:
    """Only `astest doctor` builds its flags from the task options (and loads the doctor)."""
    done = python(["-X", "importtime", "-m", "astest_tasks", "--version"])
    assert done.returncode == 0, done.stderr
    assert "astest_tasks.core.version" in done.stderr  # the probe sees our imports
    loaded = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines()}
    doctor = {"commands.doctor", "commands.option_arguments", "tasks", "tasks.doctor"}
    assert not loaded & {f"astest_tasks.{name}" for name in doctor}


def test_init_takes_as_test_18s_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--dir", str(tmp_path), "--example", "none", "--enable", "coverage"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("as-test "), "the first line says which as-test"
    assert not (tmp_path / "assembly").exists()
    assert '"coverage": true' in (tmp_path / "as-test.config.json").read_text()
    assert main(["init", str(tmp_path), "--force", "-y"]) == 0
    assert "replaced as-test.config.json (--force)" in capsys.readouterr().out
    assert '"coverage": false' in (tmp_path / "as-test.config.json").read_text()
    assert main(["init", str(tmp_path), "--enable", "try-as"]) == 3
    assert "fix: " in capsys.readouterr().err


@pytest.mark.parametrize(
    ("program", "kept"),
    [
        ("/project/.venv/bin/astest", True),  # the command's own process
        ("/site-packages/astest_tasks/__main__.py", True),  # python -m astest_tasks
        ("tools/my_script.py", False),  # a script that calls main() in a process of its own
    ],
)
def test_the_command_loads_the_task_layer_as_a_dodo_does_and_keeps_it_out_of_gcs_sight(
    program: str, kept: bool, tmp_path: Path
) -> None:
    probe = (
        "import gc, sys\n"
        f"sys.argv[0] = {program!r}\n"
        "from astest_tasks.cli import main\n"
        "before = gc.get_freeze_count()\n"
        "code = main(['help'])\n"
        "print('FROZEN', before, gc.get_freeze_count() > 1000, gc.isenabled(), code)\n"
    )
    done = python(["-c", probe], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"FROZEN 0 {kept} True 0"
