"""The ``uptodate`` checks of our tasks, as objects that say in words why a task must run.

``doit info <task>`` prints each check that evaluated to false with ``str(check)``: a plain
function or doit's ``config_changed`` would print as a function address or a whole dict. These
print the reason: which input changed from what to what, or that the last result failed.
Module-level classes with plain attributes, so ``doit -n N`` can pickle them.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from doit.dependency import UptodateCalculator
from doit.tools import config_changed

from astest_tasks.actions.snapshot_state import SNAPSHOT_STATE, snapshot_state
from astest_tasks.core.call_signature import CallSignature
from astest_tasks.core.json_text import parse_json
from astest_tasks.model.results import Status, read_result_head
from astest_tasks.schedule.scheduler import scheduler

_SAVED_INPUTS = "_astest_inputs"  # beside config_changed's digest: what the digest was of


class InputsChanged(config_changed):  # type: ignore[misc]  # doit is untyped
    """``config_changed`` that also keeps the inputs themselves, to name what changed."""

    __signature__ = CallSignature()  # doit reads it on every call

    def __init__(self, what: str, inputs: Mapping[str, Any]) -> None:
        super().__init__(dict(inputs))
        self.what = what
        self.changes = ""

    def configure_task(self, task: Any) -> None:
        super().configure_task(task)
        # Encoded when doit saves the task's values, after the task ran: a call in which the
        # task is up to date never needs the text (the inputs were copied when the check was
        # made, and every caller builds them afresh for the task).
        task.value_savers.append(lambda: {_SAVED_INPUTS: json.dumps(self.config, sort_keys=True)})

    def __call__(self, task: Any, values: Mapping[str, Any]) -> bool:
        unchanged = bool(super().__call__(task, values))
        if not unchanged:
            self.changes = _describe_changes(values.get(_SAVED_INPUTS), self.config)
        return unchanged

    def __str__(self) -> str:
        return f"the {self.what} inputs changed: {self.changes or 'no earlier successful run'}"


def _describe_changes(saved: object, current: Mapping[str, Any]) -> str:
    if not isinstance(saved, str):
        return ""
    try:
        before = parse_json(saved)
    except ValueError:
        return ""
    if not isinstance(before, dict):
        return ""
    changed = [
        f"{key} {json.dumps(before.get(key))} -> {json.dumps(current.get(key))}"
        for key in sorted(set(before) | set(current))
        if before.get(key) != current.get(key)
    ]
    return "; ".join(changed)


class LastResultPassed:
    """A failed or missing result always runs again."""

    __signature__ = CallSignature()  # doit reads it on every call

    def __init__(self, project_root: str, result_path: str) -> None:
        self.project_root = project_root
        self.result_path = result_path
        self.reason = ""

    def __call__(self) -> bool:
        # The head holds the status: no need to parse every expectation of a big spec.
        result = read_result_head(Path(self.project_root) / self.result_path)
        if result is None:
            self.reason = f"there is no readable result at {self.result_path}"
            return False
        if result.status is Status.FAILED:
            counts = result.counts
            what = result.error or f"{counts.tests_failed} of its tests failed"
            self.reason = f"the last result failed ({what}), and a failed spec always runs again"
            return False
        return True

    def __str__(self) -> str:
        return self.reason or f"the last result at {self.result_path} is checked"


class Always:
    """A fixed verdict with its reason (a random fuzz seed, a snapshot update)."""

    __signature__ = CallSignature()  # doit reads it on every call

    def __init__(self, up_to_date: bool, reason: str) -> None:
        self.up_to_date = up_to_date
        self.reason = reason

    def __call__(self) -> bool:
        return self.up_to_date

    def __str__(self) -> str:
        return self.reason


class NotHandedOver:
    """False once the run ahead has handed this run to its helper in this session (run_ahead.py):
    doit then runs the task, whose action takes what the helper did, even where the result
    file the helper wrote would make the task look up to date."""

    __signature__ = CallSignature()  # doit reads it on every call

    def __init__(self, key: tuple[str, str, str], session: str) -> None:
        self.key = key
        self.session = session

    def __call__(self) -> bool:
        return not scheduler().was_handed_over(self.key, self.session)

    def __str__(self) -> str:
        return "this run was handed to the run ahead's helper"


class TargetsAreFiles:
    """A target that is there but is not a regular file (a symlink, a FIFO, a folder) was not
    made by the task, whose writes leave regular files: it runs again, and replaces it.

    doit calls a task up to date when its targets exist and its inputs are unchanged, so one a
    pull request commits in a target's place (with a doit state to match) would stay, and doit
    itself then reads it, whole, as another task's ``file_dep``: a symlink to a FIFO, or to
    ``/proc/self/fd/1`` with stdout piped, would hang the call. A missing target is doit's own
    case."""

    __signature__ = CallSignature()  # doit reads it on every call

    def __init__(self, project_root: str, targets: list[str]) -> None:
        self.project_root = project_root
        self.targets = targets
        self.reason = ""

    def __call__(self) -> bool:
        self.reason = ""  # doit may ask again in one call (BuildUpToDate does)
        for target in self.targets:
            try:
                # os.path, not Path: this runs for every build of every call
                mode = os.lstat(os.path.join(self.project_root, target)).st_mode
            except FileNotFoundError:
                continue
            except OSError:
                mode = 0
            if not stat.S_ISREG(mode):
                self.reason = f"{target} is not a regular file (a symlink?), so not the task's"
                return False
        return True

    def __str__(self) -> str:
        return self.reason or f"the targets ({', '.join(self.targets)}) are regular files"


class SnapshotsUnchanged:
    """The snapshot files' contents, compared with those after the last run (by digest, since
    a snapshot file may not exist yet and so cannot be a ``file_dep``)."""

    __signature__ = CallSignature()  # doit reads it on every call

    def __init__(self, project_root: str, paths: list[str]) -> None:
        self.project_root = project_root
        self.paths = paths

    def __call__(self, task: Any, values: Mapping[str, Any]) -> bool:
        """doit passes ``task`` and the task's saved ``values`` by name."""
        now = snapshot_state(Path(self.project_root), self.paths)
        return values.get(SNAPSHOT_STATE) == now

    def __str__(self) -> str:
        return f"a snapshot file changed since the last run ({', '.join(self.paths)})"


class LastFuzzPassed:
    """A failed or missing fuzz campaign always runs again (a pinned seed's cache)."""

    __signature__ = CallSignature()  # doit reads it on every call

    def __init__(self, project_root: str, result_path: str) -> None:
        self.project_root = project_root
        self.result_path = result_path
        self.reason = ""

    def __call__(self) -> bool:
        from astest_tasks.fuzz.results import read_fuzz_result

        result = read_fuzz_result(Path(self.project_root) / self.result_path)
        if result is None:
            self.reason = f"there is no readable fuzz result at {self.result_path}"
            return False
        if not result.passed:
            # an error's first line says what happened (a limit's: which, at what value)
            first_line = result.error.partition("\n")[0]
            failed = ", ".join(f.name for f in result.failed_fuzzers) or first_line
            self.reason = f"the last campaign failed ({failed}), and a failed one always runs again"
            return False
        return True

    def __str__(self) -> str:
        return self.reason or f"the last fuzz result at {self.result_path} is checked"


class BuildUpToDate(UptodateCalculator):  # type: ignore[misc]  # doit is untyped
    """A run task's check that its build is up to date, as doit would find it now.

    A run depends on its build through the build record. When a module the spec imports changes,
    only the build's own ``file_dep`` sees it, and the record changes once the build has run: so
    ``doit info`` and ``doit list --status`` would call the run up to date while the next ``doit``
    rebuilds and re-runs it. Asking doit for the build's status closes that gap. In a real run
    doit checks a run only after its build was executed and saved (the record is the build's
    target, so the build is an implicit task_dep), when this is true again: a rebuilt but
    byte-identical wasm still does not re-run its test, and nothing runs twice. So a run that is
    not ``--single`` leaves this check out (``RunSettings.builds_checked_first``): there it
    would only repeat doit's own check of the build.
    """

    __signature__ = CallSignature()  # doit reads it on every call

    MAX_NAMED = 3  # changed files named in the reason; a toolchain upgrade changes many

    def __init__(self, build_task: str) -> None:
        super().__init__()
        self.build_task = build_task
        self.dep_manager: Any = None
        self.reason = ""

    def setup(self, dep_manager: Any, tasks_dict: Mapping[str, Any]) -> None:
        super().setup(dep_manager, tasks_dict)
        self.dep_manager = dep_manager

    def __call__(self) -> bool:
        self.reason = ""
        build = (self.tasks_dict or {}).get(self.build_task)
        if build is None or self.dep_manager is None or self.dep_manager.status_is_ignore(build):
            return True  # not loaded (a filtered load) or ignored: the record alone decides
        if self.get_val(self.build_task, "checker:") is None:
            self.reason = "its build has not run yet"
            return False
        # get_status leaves the build's changed files on the task, for its own actions: keep them.
        changed_before = build.dep_changed
        try:
            status = self.dep_manager.get_status(build, self.tasks_dict, get_log=True)
        finally:
            build.dep_changed = changed_before
        if status.status == "up-to-date":
            return True
        self.reason = f"its build is out of date: {self._describe(status)}"
        return False

    def _describe(self, status: Any) -> str:
        reasons = status.reasons
        parts = [self._files(reasons["changed_file_dep"], "changed")]
        parts.append(self._files(reasons["missing_file_dep"], "is missing", "are missing"))
        parts.append(self._files(reasons["added_file_dep"], "became an input"))
        parts.append(self._files(reasons["removed_file_dep"], "is no longer an input"))
        parts.append(self._files(reasons["missing_target"], "is missing", "are missing"))
        parts.extend(str(check) for check, _, _ in reasons["uptodate_false"])
        if reasons["checker_changed"]:
            parts.append("doit's file checker changed")
        return "; ".join(part for part in parts if part) or str(status.error_reason or "")

    def _files(self, paths: list[str], verb: str, plural_verb: str = "") -> str:
        if not paths:
            return ""
        named = ", ".join(sorted(paths)[: self.MAX_NAMED])
        more = len(paths) - self.MAX_NAMED
        if more > 0:
            named += f" and {more} more"
        return f"{named} {plural_verb if plural_verb and len(paths) > 1 else verb}"

    def __str__(self) -> str:
        return self.reason or f"the build {self.build_task} is checked"
