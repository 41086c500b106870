"""Which files differ from a git revision: the raw input of ``--changed[=REF]``.

As as-test 1.8's ``--changed``: the files whose content differs between REF and the working
tree (``git diff --name-only REF --``: committed since REF, staged or not), plus the untracked
files git does not ignore (a new spec or helper). Renames count as a deletion and an addition
(``--no-renames``): a spec that still imports a module's old name is affected as much as one
that imports its new name. git names paths from the top of the repository; they are made
relative to the project root, which may be a subfolder (``packages/lib``), so a file outside it
reads ``../shared/x.ts``, the way the import scan names a module outside the project.
"""

from __future__ import annotations

import posixpath
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen

_DROP = "drop --changed to run every spec"


@frozen
class ChangedFiles:
    ref: str
    paths: frozenset[str]  # posix, relative to the project root (``../`` for outside it)


def changed_files(project_root: Path, ref: str) -> ChangedFiles:
    """The files that differ from ``ref`` in the repository holding ``project_root``."""
    ref = ref.strip()
    if ref.startswith("-"):
        raise UserError(
            f"--changed {ref}: a git revision does not start with '-' (a bare --changed took the "
            "next option as its REF); fix: write the REF with '=', e.g. --changed=HEAD"
        )
    prefix = _git(project_root, ["rev-parse", "--show-prefix"], ref).strip()
    if _run(project_root, ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"]).returncode:
        # doit's parser gives a bare --changed the next word: `--changed astest:summary`.
        bare = "; a bare --changed took the next word as its REF: write --changed=HEAD"
        raise UserError(
            f"--changed={ref}: git knows no commit {ref!r} in the repository of {project_root}; "
            "fix: name a branch, tag or commit that exists here (in CI, fetch it first: "
            "`git fetch origin main`, or check out with the full history)"
            f"{bare if ':' in ref else ''}"
        )
    differing = _git(project_root, ["diff", "--name-only", "--no-renames", "-z", ref, "--"], ref)
    untracked = _git(
        project_root,
        ["ls-files", "--others", "--exclude-standard", "--full-name", "-z", "--", ":/"],
        ref,
    )
    repo_paths = [*_nul_separated(differing), *_nul_separated(untracked)]
    return ChangedFiles(ref=ref, paths=frozenset(project_relative(repo_paths, prefix)))


def project_relative(repo_paths: Iterable[str], prefix: str) -> list[str]:
    """Paths from the repository's top made relative to the project folder, whose path from the
    top is ``prefix`` (``git rev-parse --show-prefix``: ``packages/lib/``, or "" at the top)."""
    folder = prefix.strip("/")
    if not folder:
        return [posixpath.normpath(path) for path in repo_paths]
    return [posixpath.relpath(posixpath.normpath(path), folder) for path in repo_paths]


def _nul_separated(output: str) -> list[str]:
    return [path for path in output.split("\0") if path]


def _git(project_root: Path, arguments: Sequence[str], ref: str) -> str:
    completed = _run(project_root, arguments)
    if completed.returncode == 0:
        return completed.stdout
    message = (completed.stderr.strip().splitlines() or ["no message"])[-1]
    if "not a git repository" in message:
        raise UserError(
            f"--changed={ref}: {project_root} is not inside a git repository, so nothing can be "
            f"compared with {ref}; fix: run it in a git checkout, or {_DROP}"
        )
    raise UserError(
        f"--changed={ref}: `git {' '.join(arguments)}` failed in {project_root}: {message}; "
        f"fix: repair the repository (run that git command to see why), or {_DROP}"
    )


def _run(project_root: Path, arguments: Sequence[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *arguments],
            cwd=project_root,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="surrogateescape",
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except FileNotFoundError:
        raise UserError(
            f"--changed needs git, and there is no git on PATH; fix: install git, or {_DROP}"
        ) from None
