"""The cyclic garbage collector while a call loads the package and plans: paused, and, in the
doit or astest command's process, what exists once the task layer is first loaded kept out of
its later passes.

Why: the collector runs after every 700 new container objects (tuples, dicts, functions,
classes, records) and looks through the young ones each time, and at the interpreter's exit it
looks through every object once more (a full collection, which runs even when the collector is
off). Importing the task layer and planning a call make tens of thousands of such objects that
live on, and almost nothing for it to find: in a ``doit`` call with nothing to do it collected
about 700 objects over the whole call (issue 40).

- ``CyclicGcPaused``: a stretch that makes many lasting objects runs with the collector off.
  The objects made meanwhile are looked through once, by the first collection after the pause,
  and the few cycles among them are collected then: nothing is lost, and memory grows by that
  stretch's garbage cycles at most, for that stretch. The pause puts the collector back as it
  found it, also when the stretch raises, so a caller that turned it off keeps it off. It is
  for a stretch of our own code that runs to its end: not across a generator's ``yield``,
  where the caller's code would run with the collector paused. The collector is the process's:
  another thread (watch mode's compiler warm-up) runs with it off for that stretch too, which
  is harmless as long as nothing else switches it meanwhile (nothing of ours does). About 3
  million instructions of a no-change call.
- ``FirstLoadKept``: a pause around loading a module, and, when that stretch is the one that
  first loaded the package's task layer (its modules, classes and functions, which live as long
  as the process) in a process that the doit or astest command runs, every object of the
  process that exists at its end is moved out of the collector's sight (``gc.freeze``, the
  standard library's tool for a process that loads what it keeps and then works): neither the
  collections that follow nor the full one at exit look through them again. About 44 million
  instructions of a no-change call (7%), most of them the exit's full collection. What it
  costs, which is why it is for those commands' processes alone and happens once: a cycle that
  is garbage at that moment (a few hundred objects the paused load left, functions, tuples and
  dicts, none holding a file or a process) is never collected, and neither is a cycle formed
  later through a frozen object, nor is either finalized at exit; ``gc.get_objects`` no longer
  lists frozen objects. The objects a call makes afterwards (its plan, its tasks, watch mode's
  every cycle) are collected as before, and our own clean-ups at exit go through ``atexit``,
  not the collector.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable

# The module whose first load brings the task layer in (the task creator's factory).
TASK_LAYER = "astest_tasks.tasks.factory"


class CyclicGcPaused:
    """``with CyclicGcPaused(): ...``: the stretch runs with the cyclic collector off."""

    __slots__ = ("_was_enabled",)

    def __init__(self) -> None:
        self._was_enabled = False

    def __enter__(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *raised: object) -> None:
        if self._was_enabled:
            gc.enable()


class FirstLoadKept(CyclicGcPaused):
    """``with FirstLoadKept(module, keeps): <load it>``: paused; and when the stretch loaded
    ``module`` (a name of ``sys.modules``) for the first time, ended without an error and
    ``keeps()`` says this process is one to keep it for, every object that exists then is left
    out of the collector's later passes, the full one at the interpreter's exit included
    (``gc.freeze``; see above)."""

    __slots__ = ("_first", "_keeps", "_module")

    def __init__(self, module: str, keeps: Callable[[], bool]) -> None:
        super().__init__()
        self._module = module
        self._keeps = keeps
        self._first = False

    def __enter__(self) -> None:
        self._first = self._module not in sys.modules
        super().__enter__()

    def __exit__(self, *raised: object) -> None:
        # raised: the exception's type, value and traceback, all None when the load succeeded
        loaded = raised[0] is None and self._first and self._module in sys.modules
        if loaded and self._keeps():
            gc.freeze()
        super().__exit__(*raised)
