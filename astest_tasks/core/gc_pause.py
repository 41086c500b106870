"""A pause of Python's cyclic garbage collector while a call loads the package and plans.

Why: the collector runs after every 700 new container objects (tuples, dicts, functions,
classes, records) and looks through the young ones each time. Importing the task creator and
planning a call make tens of thousands of such objects that all live on, and almost nothing for
it to find: in a ``doit`` call with nothing to do it collected about 700 objects over the whole
call, while its collections during the import and the plan cost some 3 million instructions
(issue 40). Paused, the objects made meanwhile are looked through once, by the first collection
after the pause, and the few cycles among them are collected then: nothing is lost, and memory
grows by that stretch's garbage cycles at most, for that stretch.

The pause puts the collector back as it found it, also when the stretch raises, so a caller
that turned it off keeps it off. It is for a stretch of our own code that runs to its end: not
across a generator's ``yield``, where the caller's code would run with the collector paused.
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
