"""What the tasks of one doit call need to know of the remote cache, as plain data.

Apart from the session (session.py) that uses it: every build and run task of a call with a cache
carries one, and a call without a cache loads none of the session's code (issue 40).
"""

from __future__ import annotations

from astest_tasks.core.frozen import frozen
from astest_tasks.remote.settings import RemoteSettings


@frozen
class RemoteUse:
    """What an action needs to use the remote cache: plain data, pickled to doit's workers. The
    settings' secrets never print (``repr=False``)."""

    settings: RemoteSettings
    state_dir: str  # absolute: where this call's processes leave their files
    session: str  # the doit call's
