"""``import astest_tasks`` is inert (astest_tasks/__init__.py): a runner script, a tool or a test
that imports the package gets no argv read, no file opened and no process hook registered; a
dodo.py that names ``task_astest`` still gets its task creator."""

from __future__ import annotations

import json

from tests.conftest import ProjectBuilder
from tests.fresh_python import python

# Runs in a fresh interpreter: junk in sys.argv that reading it would trip over, a list that
# records being read, and recorders on every way to register a hook or open a file. Module
# files that the import itself loads are not "opening a file" for this purpose; anything else is.
_PROBE = r"""
import atexit, json, os, sys

class WatchedArgv(list):
    reads = 0
    def _seen(self):
        WatchedArgv.reads += 1
    def __getitem__(self, index):
        self._seen(); return super().__getitem__(index)
    def __iter__(self):
        self._seen(); return super().__iter__()
    def __len__(self):
        self._seen(); return super().__len__()

hooks = []
real_register, real_at_fork = atexit.register, os.register_at_fork
def caller():  # the standard library's own hooks (logging registers one) are not ours
    return sys._getframe(3).f_globals.get("__name__", "")
def ours():
    return caller().startswith("astest_tasks")
atexit.register = lambda *a, **k: (ours() and hooks.append("atexit")) or real_register(*a, **k)
os.register_at_fork = lambda **k: (ours() and hooks.append("at_fork")) or real_at_fork(**k)
opened = []
def audit(event, args):
    if event == "open" and isinstance(args[0], str):
        if not args[0].endswith((".py", ".pyc", ".so", ".pth")) and not os.path.isdir(args[0]):
            opened.append(args[0])
sys.addaudithook(audit)
sys.argv = WatchedArgv(["dodo.py", "--junk", "-n", "nonsense", "astest:run:*"])
before = set(sys.modules)
import importlib
import astest_tasks
importlib.import_module(MODULE)
print(json.dumps({
    "argv_reads": WatchedArgv.reads,
    "hooks": hooks,
    "opened": opened,
    "loaded": sorted(set(sys.modules) - before),
    "version": astest_tasks.__version__,
}))
"""


def _probe(module: str = "astest_tasks") -> dict[str, object]:
    done = python(["-c", f"MODULE = {module!r}\n{_PROBE}"])
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_importing_the_package_reads_no_argv_opens_no_file_and_registers_no_hook() -> None:
    seen = _probe()
    assert seen["argv_reads"] == 0
    assert seen["hooks"] == []
    assert seen["opened"] == []
    loaded = seen["loaded"]
    assert isinstance(loaded, list) and "astest_tasks" in loaded  # the probe did import it
    heavy = [name for name in loaded if name.split(".")[0] in {"doit", "wasmtime", "jinja2"}]
    assert heavy == [], f"importing astest_tasks loaded {heavy}"
    assert not any(name.startswith("astest_tasks.tasks") for name in loaded)


def test_a_dodo_that_names_task_astest_gets_the_task_creator(tmp_project: ProjectBuilder) -> None:
    root = tmp_project(files={"assembly/__tests__/math.spec.ts": "// a spec\n"})
    (root / "dodo.py").write_text(
        "from astest_tasks import task_astest  # noqa: F401\n"
        "import astest_tasks\n"
        "assert astest_tasks.task_astest is task_astest  # made once\n"
        'DOIT_CONFIG = {"backend": "sqlite3"}\n'
    )
    done = python(["-m", "doit", "list", "--all"], cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "astest:run:wasi:math" in done.stdout.split(), done.stdout


# Records whether the cyclic collector ran while the task layer was imported, and what froze.
_GC_PROBE = r"""
import gc, json, sys
if DISABLED:
    gc.disable()
seen = []
def audit(event, args):
    if event == "import" and args[0] == "astest_tasks.tasks.factory":
        seen.append(gc.isenabled())
sys.addaudithook(audit)
sys.argv = [PROGRAM]
import astest_tasks
frozen_on_import = gc.get_freeze_count()
from astest_tasks import make_astest_tasks
frozen_on_load = gc.get_freeze_count()
gc.unfreeze()
getattr(astest_tasks, "make_astest_tasks")  # asked again: already loaded
print(json.dumps({
    "during": seen,
    "after": gc.isenabled(),
    "frozen": [frozen_on_import, frozen_on_load > 1000, gc.get_freeze_count()],
}))
"""


def test_the_task_layer_loads_with_the_collector_paused_and_is_then_kept_out_of_its_sight() -> None:
    cases = (
        ("/project/.venv/bin/doit", False, True, True),
        ("/project/.venv/bin/doit", True, False, True),  # a caller's own choice stays
        ("tools/notebook.py", False, True, False),  # not doit's process: nothing frozen
    )
    for program, disabled, after, kept in cases:
        done = python(["-c", f"PROGRAM = {program!r}\nDISABLED = {disabled}\n{_GC_PROBE}"])
        assert done.returncode == 0, done.stderr
        seen = json.loads(done.stdout.splitlines()[-1])
        assert seen["during"] == [False] and seen["after"] is after
        # Not on the inert import; once on the first load in doit's process, never again.
        assert seen["frozen"] == [0, kept, 0]


def test_an_unknown_name_is_an_attribute_error() -> None:
    import astest_tasks

    try:
        astest_tasks.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("astest_tasks.no_such_name should not exist")


def test_importing_the_scheduler_registers_no_hook_until_one_is_made() -> None:
    """The scheduler's exit and fork hooks come with the first scheduler, not with its module,
    which the task creator imports before it knows whether anything will be scheduled."""
    seen = _probe("astest_tasks.schedule.scheduler")
    assert "astest_tasks.schedule.scheduler" in str(seen["loaded"])
    assert seen["hooks"] == []


def test_the_probe_sees_a_hook_registered_at_import() -> None:
    """run/module_shelf.py registers its fork hook at import (the run stage, which only a run
    loads): the probe must see it, or the tests above would pass on a blind probe."""
    seen = _probe("astest_tasks.run.module_shelf")
    assert seen["hooks"] == ["at_fork"]
