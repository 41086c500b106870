"""The snapshot files' state, which a run task saves with doit and its up-to-date check compares.

Snapshot files cannot be ``file_dep``: a spec's may not exist yet, and the run itself may write
it. So the run action saves a digest of their contents after it ran (snapshots it wrote count as
seen, and the next plain doit is cached), and ``checks.SnapshotsUnchanged`` compares the digest
of the files as they are now. Both import it from here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from astest_tasks.core.project_source import NotReadable, read_project_file
from astest_tasks.model.snapshot_paths import MAX_SNAPSHOT_BYTES

SNAPSHOT_STATE = "snapshot_state"  # the name of the value saved in doit's state database


def snapshot_state(project_root: Path, paths: Sequence[str]) -> str:
    """A digest of the snapshot files' contents, absent ones included.

    Read by the rules snapshots are loaded by (model/snapshots.py): a file that is not one of the
    project's regular files is never read (a FIFO would hang the up-to-date check, a symlink to
    /dev/zero fill memory); its run failed saying why, so doit runs it again anyway."""
    digest = hashlib.sha256()
    for path in paths:
        try:
            content = read_project_file(
                project_root, path, hidden_folders=True, max_bytes=MAX_SNAPSHOT_BYTES
            )
        except FileNotFoundError:
            digest.update(f"{path}\0absent\0".encode())
            continue
        except (NotReadable, OSError):
            digest.update(f"{path}\0unreadable\0".encode())
            continue
        digest.update(f"{path}\0{len(content)}\0".encode() + content)
    return digest.hexdigest()
