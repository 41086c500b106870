"""A task that cannot do its work at all (the disk is full): one ``ERROR:`` line, and a failed
doit task.

A spec's own failure is data in its record, and its task succeeds (run_action.py). A full disk
is not the spec's: recording anything would record a wrong result, so the task fails instead.
doit then stops (without ``--continue``) with this one line, and, as for any failed task, saves
nothing for it: once there is space again, it runs by itself.
"""

from __future__ import annotations

import sys

from doit.exceptions import TaskFailed

from astest_tasks.core.errors import UserError
from astest_tasks.core.guest_text import for_stream


def failed_task(error: UserError) -> TaskFailed:
    """Print ``error`` as doit prints a loading error, and fail the task without doit's banner
    and traceback (report=False)."""
    stream = sys.stderr
    # A path in the message (a spec's, a folder's) may hold control characters: escaped, they
    # can neither move the cursor nor split the line.
    line = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in str(error))
    stream.write(for_stream(f"ERROR: {line}\n", stream))
    stream.flush()
    return TaskFailed(str(error), report=False)
