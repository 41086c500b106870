"""The files that differ from a git revision, read from real (tiny) git repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from astest_tasks.config.git_changes import changed_files
from astest_tasks.core.errors import UserError


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Neither the machine's nor the user's git configuration may change what git prints."""
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)


def git(repo: Path, *arguments: str) -> str:
    done = subprocess.run(["git", *arguments], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def write(root: Path, path: str, text: str) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text)


def make_repo(root: Path, files: dict[str, str]) -> str:
    """A repository with ``files`` committed; returns that commit."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Spec Runner")
    git(root, "config", "user.email", "specs@example.com")
    for path, text in files.items():
        write(root, path, text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return git(root, "rev-parse", "HEAD")


LIBRARY = {
    ".gitignore": "node_modules/\n.as-test/build/\n",
    "assembly/lib/vec.ts": "export function dot(a: f64, b: f64): f64 { return a * b; }\n",
    "assembly/lib/text.ts": "export function upper(s: string): string { return s; }\n",
    "assembly/__tests__/vec.spec.ts": 'import { dot } from "../lib/vec";\n',
}


def test_edits_staged_or_not_and_untracked_files_differ_from_head(tmp_path: Path) -> None:
    make_repo(tmp_path, LIBRARY)
    write(tmp_path, "assembly/lib/vec.ts", "// edited, not staged\n")
    write(tmp_path, "assembly/lib/text.ts", "// edited and staged\n")
    git(tmp_path, "add", "assembly/lib/text.ts")
    write(tmp_path, "assembly/__tests__/new.spec.ts", "// a new spec, untracked\n")
    write(tmp_path, ".as-test/build/vec.spec.wasm", "ignored output")
    changed = changed_files(tmp_path, "HEAD")
    assert changed.ref == "HEAD"
    assert changed.paths == {
        "assembly/lib/vec.ts",
        "assembly/lib/text.ts",
        "assembly/__tests__/new.spec.ts",
    }


def test_nothing_differs_in_a_clean_checkout(tmp_path: Path) -> None:
    make_repo(tmp_path, LIBRARY)
    assert changed_files(tmp_path, "HEAD").paths == frozenset()


def test_commits_since_an_older_ref_count_as_well(tmp_path: Path) -> None:
    first = make_repo(tmp_path, LIBRARY)
    write(tmp_path, "assembly/lib/text.ts", "// committed later\n")
    git(tmp_path, "commit", "-q", "-am", "later")
    assert changed_files(tmp_path, first).paths == {"assembly/lib/text.ts"}
    assert changed_files(tmp_path, "HEAD").paths == frozenset()
    assert changed_files(tmp_path, "HEAD~1").paths == {"assembly/lib/text.ts"}


def test_a_rename_lists_the_old_and_the_new_name(tmp_path: Path) -> None:
    make_repo(tmp_path, LIBRARY)
    git(tmp_path, "mv", "assembly/lib/text.ts", "assembly/lib/strings.ts")
    git(tmp_path, "commit", "-q", "-m", "rename")
    assert changed_files(tmp_path, "HEAD~1").paths == {
        "assembly/lib/text.ts",
        "assembly/lib/strings.ts",
    }


def test_a_project_in_a_subfolder_gets_paths_relative_to_itself(tmp_path: Path) -> None:
    make_repo(
        tmp_path,
        {
            "package-lock.json": "{}\n",
            "packages/shared/vec.ts": "export const ONE: f64 = 1;\n",
            **{f"packages/geo/{path}": text for path, text in LIBRARY.items()},
        },
    )
    write(tmp_path, "packages/geo/assembly/lib/vec.ts", "// edited\n")
    write(tmp_path, "packages/shared/vec.ts", "// edited outside the project\n")
    write(tmp_path, "package-lock.json", '{"lockfileVersion": 3}\n')
    write(tmp_path, "packages/shared/extra.ts", "// untracked, outside the project\n")
    changed = changed_files(tmp_path / "packages" / "geo", "HEAD")
    assert changed.paths == {
        "assembly/lib/vec.ts",
        "../shared/vec.ts",
        "../shared/extra.ts",
        "../../package-lock.json",
    }


def test_outside_a_repository_is_one_error_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # whatever holds tmp_path
    with pytest.raises(UserError, match=r"not inside a git repository.*; fix: ") as caught:
        changed_files(plain, "HEAD")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("ref", ["origin/main", "no-such-branch", "astest:summary"])
def test_a_ref_git_does_not_know_is_one_error_with_the_fix(tmp_path: Path, ref: str) -> None:
    make_repo(tmp_path, LIBRARY)
    with pytest.raises(UserError, match=rf"git knows no commit '{ref}'.*; fix: ") as caught:
        changed_files(tmp_path, ref)
    assert "\n" not in str(caught.value)
    assert ("took the next word" in str(caught.value)) == (":" in ref)


def test_an_option_taken_as_the_ref_is_named(tmp_path: Path) -> None:
    make_repo(tmp_path, LIBRARY)
    with pytest.raises(UserError, match=r"--changed --mode: .*fix: write the REF with '='"):
        changed_files(tmp_path, "--mode")


def test_a_repository_without_commits_has_no_head(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    with pytest.raises(UserError, match="git knows no commit 'HEAD'"):
        changed_files(tmp_path, "HEAD")


def test_without_git_on_path_the_error_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(UserError, match="no git on PATH; fix: install git"):
        changed_files(tmp_path, "HEAD")
