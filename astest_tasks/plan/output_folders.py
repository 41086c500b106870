"""Our own files beside the build output, and the folders we write into.

Everything of ours that is not build output lives under the output root (``.as-test``, or the
folder a string ``output`` names: ``config.output_root``), never at the project's root, where
the user's own ``html/``, ``cache/`` or ``reports/`` may be. Its files are named here.

Before any task runs, every folder we write into is checked: otherwise the first write fails
deep inside a task with a traceback, possibly half-way through the run; one line up front says
which folder, from which config field, and what to do. Inside the project, neither such a
folder, nor a folder on its way, nor one inside it, may be a symbolic link that leads out of the
project: a run writes there and ``doit clean`` deletes there, and a link committed into the
project (by a pull request, say) would send both onto files that are not ours, as
model/snapshots.py refuses for a snapshot folder. A link that stays inside the project (a shared
snapshot folder, pnpm's ``node_modules``) is followed, and a folder the config names outside the
project, the way to put our files on another disk, is the config's choice, only checked for
being writable. (A pull request's dodo.py, runner scripts and runtime commands run as code:
this is a guard against a link slipping by, not a sandbox.)

0.1.0 put the reports and caches in the folder that holds ``outDir``: a project that builds into
``./build`` got them at its root. They stay where they are (they may be the user's), and the
first run at the new place says so once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from astest_tasks.config.project_config import ModeSettings, ProjectConfig
from astest_tasks.core.errors import UserError
from astest_tasks.output.report_state import HISTORY_FILE, STATE_FILE
from astest_tasks.run.runner_files import RUNNERS_DIR

# Under the output root, beside the reports (HISTORY_FILE too).
PROJECT_LOCK = "cache/project.lock"  # one doit run at a time (project_lock.py)
PROGRESS_COUNTER = "cache/progress.json"  # finished specs, counted across doit's workers
IMPORT_SCAN_CACHE = "cache/import-scan.json"  # the import scans, kept between calls
REMOTE_STATE = "cache/remote"  # what one call's processes tell each other (remote/session.py)


def check_output_folders(
    project_root: Path, config_path: str, output_root: str, modes: Iterable[ModeSettings]
) -> None:
    walked: list[str] = []  # folders searched for links already (outDir is inside .as-test)
    for field, folder in _folders(output_root, modes):
        link = _linked_folder(project_root, Path(folder), walked)
        if link is not None:
            import shlex  # only this error needs it (issue 40)

            raise UserError(
                f"{config_path}: {field}: will not write into {folder}: {link} is a symbolic "
                "link out of the project, and a run writes there and `doit clean` deletes there; "
                f"fix: delete the link (rm {shlex.quote(link)}): a run writes that folder's files "
                f"again; or, to keep our files on another disk, point {field.split(' ')[0]} at "
                "a folder there"
            )
        problem = _problem(project_root, Path(folder))
        if problem is not None:
            raise UserError(
                f"{config_path}: {field}: cannot write into {folder}: {problem}; fix: {_FIX}"
            )


_FIX = (
    "move the file out of the way or make the folder writable, or point the field at another folder"
)


def _linked_folder(project_root: Path, folder: Path, walked: list[str]) -> str | None:
    """The first symbolic link (relative to the project) out of the project, on the way to
    ``folder`` or inside it, when ``folder`` is inside the project; else None. ``walked`` holds
    the folders searched already, which this adds to."""
    root = os.path.normpath(project_root)
    path = os.path.normpath(os.path.join(root, folder))
    if os.path.commonpath([root, path]) != root:
        return None  # the config names a folder outside the project: its choice
    real_root = os.path.realpath(root)
    here = root
    for part in Path(os.path.relpath(path, root)).parts:
        if part == os.curdir:
            continue
        here = os.path.join(here, part)
        if os.path.islink(here) and _leads_out(here, real_root):
            return os.path.relpath(here, root)
        if not os.path.isdir(here):
            return None  # not made yet (or a file: _problem says so)
    if any(os.path.commonpath([done, here]) == done for done in walked):
        return None
    walked.append(here)
    inner = _link_out_inside(here, real_root)
    return None if inner is None else os.path.relpath(inner, root)


# Not ours to write into, and large: a snapshotDir of "." would otherwise walk them every call.
_NOT_SEARCHED = frozenset({"node_modules", ".git"})


def _link_out_inside(folder: str, real_root: str) -> str | None:
    """The first symbolic link to a folder out of the project inside ``folder``, at any depth
    (a link to a file is replaced, not written through, by our atomic writes, and removed, not
    followed, by doit's clean)."""
    pending = [folder]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue  # unreadable: _problem says so when it matters (not writable)
        for entry in entries:
            if entry.name in _NOT_SEARCHED:
                continue
            if entry.is_symlink():
                if entry.is_dir() and _leads_out(entry.path, real_root):
                    return entry.path
            elif entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
    return None


def _leads_out(link: str, real_root: str) -> bool:
    """Whether the link ``link`` ends outside the project (whose real path is ``real_root``)."""
    target = os.path.realpath(link)
    return os.path.commonpath([real_root, target]) != real_root


def _folders(output_root: str, modes: Iterable[ModeSettings]) -> Iterator[tuple[str, str]]:
    yield "output", output_root
    yield "output (runner scripts)", RUNNERS_DIR
    for mode in modes:
        where = "" if mode.name == "default" else f"modes.{mode.name}."
        yield f"{where}outDir", mode.out_dir
        yield f"{where}snapshotDir", mode.snapshot_dir
        yield f"{where}fuzz.crashDir", mode.crash_dir
        if mode.logs_dir is not None:
            yield f"{where}logs", mode.logs_dir


def _problem(project_root: Path, folder: Path) -> str | None:
    """Why ``folder`` (relative to the project) cannot be created or written, or None."""
    path = folder if folder.is_absolute() else project_root / folder
    # The nearest part that exists decides: it must be a folder we may write into.
    while not path.exists():
        if path.parent == path:
            return None
        path = path.parent
    if not path.is_dir():
        return f"{path} is a file, not a folder"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"{path} is not writable"
    return None


def moved_outputs_note(project_root: Path, config: ProjectConfig) -> str:
    """One line when 0.1.0's files are still at its place and no report is at ours yet (so it
    is said once: the run that prints it writes ``report.json`` here); else "".

    Only files by names no one else uses (the report state, our caches) show they are ours, and
    only those are named: a ``report.json``, ``html/`` or ``cache/project.lock`` there may be
    the user's own, and nothing there is touched.
    """
    former, now = project_root / config.former_output_root, project_root / config.output_root
    if former.resolve() == now.resolve() or (now / "report.json").exists():
        return ""
    found = [name for name in _ONLY_OURS if (former / name).is_file()]
    if not found:
        return ""
    return (
        f"note: astest-tasks now writes its reports and caches under {config.output_root}/, "
        f"no longer beside outDir in {config.former_output_root}/; what an earlier version "
        f"left there ({', '.join(found)}) is left as it is: delete it, and those reports "
        "there that are not your own, once you no longer need them"
    )


# Files whose names only astest-tasks uses (relative to the output root).
_ONLY_OURS = (STATE_FILE, HISTORY_FILE, IMPORT_SCAN_CACHE)
