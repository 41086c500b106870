"""The cyclic garbage collector while a call loads the package and plans: paused, and what the
package's first load made kept out of its later passes.

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
  where the caller's code would run with the collector paused. (About 3 million instructions of
  a no-change call.)
- ``keep_for_the_process``: once, when the package's task layer is first loaded (its modules,
  classes and functions, which live as long as the process), every object that exists then is
  moved out of the collector's sight (``gc.freeze``, the standard library's tool for a process
  that loads what it keeps and then works): neither the collections that follow nor the full
  one at exit look through them again. About 44 million instructions of a no-change call, 7% of
  it; most of that was the exit's full collection. What it costs: a cycle that was already
  garbage at that moment, or that later forms among those objects alone, is never collected,
  nor finalized at exit. Only the first load freezes, so this is bounded by what existed then;
  the objects a call makes afterwards (its plan, its tasks, watch mode's every cycle) are
  collected as before.
"""

from __future__ import annotations

import gc
from types import TracebackType


class CyclicGcPaused:
    """``with CyclicGcPaused(): ...``: the stretch runs with the cyclic collector off."""

    __slots__ = ("_was_enabled",)

    def __init__(self) -> None:
        self._was_enabled = False

    def __enter__(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._was_enabled:
            gc.enable()


def keep_for_the_process() -> None:
    """Leave every object that exists now out of the collector's later passes, the full one at
    the interpreter's exit included (``gc.freeze``; see above): for when the package's task
    layer has just been loaded for the first time."""
    gc.freeze()
