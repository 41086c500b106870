"""What the summary remembers between runs, so that a run where no result changed rewrites nothing.

The reports (every format in output/formats, and the coverage files) are a function of the result
files and of the options that shape them (the summary plan, our version, the formats' files). The
state file, beside report.json, holds a digest of all of those and the modification time of
every file written from them. When the digest and the files are as they were, the reports are
left alone.

Each result file's digest is of its bytes. Hashing them is most of what a run with nothing to do
spends on a big suite (21 MB of results on the 360,006-test bench: about 30 ms, issue 40), so
the state also keeps, per result file, its signature (``file_signature``) when it was last hashed
and that digest: a file with the same signature is taken for the same bytes, and is not hashed
again. Our writes replace the file (a new inode), and any write moves the change time; only a
same-size write in place by another program within one tick of the kernel's file clock (a few
milliseconds) could go unseen. This is stricter than doit's own test of a file dependency (the
same modification time). docs/big-suites.md says so for users.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.records import decode, encode
from astest_tasks.core.state_files import read_state_file

STATE_FILE = "report-state.json"
# The HTML report's record of past durations (duration_history.py), named here beside the
# state: the output folders' check needs the name on every call, the history only a rewrite.
HISTORY_FILE = "cache/duration-history.json"  # relative to report.json's folder
_FORMAT = 1


@frozen
class ReportState:
    digest: str
    outputs: Mapping[str, int]  # path (relative to the project root) -> mtime in ns when written
    # result file (relative to the project root) -> (its signature when hashed, its digest)
    results: Mapping[str, tuple[str, str]] = field(default_factory=dict)


def file_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def known_digest(
    known: Mapping[str, tuple[str, str]], path: str, signature: str, data: bytes
) -> str:
    """The digest of ``data``, read from ``path`` when it had ``signature``: the one ``known``
    holds when it was hashed with that signature, else computed."""
    seen = known.get(path)
    if seen is not None and seen[0] == signature:
        return seen[1]
    return file_digest(data)


def reports_digest(options: Mapping[str, object], result_digests: Sequence[str]) -> str:
    """One digest of the options that shape the reports and of every result file, in order."""
    text = json.dumps({"options": options, "results": list(result_digests)}, sort_keys=True)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=20).hexdigest()


def load_state(path: Path) -> ReportState | None:
    """The state the last report writer left, or None (missing, not ours to read as
    core/state_files.py says, another format): the reports are then written again."""
    text = read_state_file(path)
    if text is None:
        return None
    try:
        data = parse_json(text)
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            return None
        return decode(ReportState, data)
    except ValueError:  # UnicodeDecodeError and RecordError are ValueErrors
        return None


def save_state(path: Path, state: ReportState) -> None:
    data = {"format": _FORMAT, **encode(state)}
    write_text_atomic(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")


def modification_times(root: Path, outputs: Sequence[str]) -> dict[str, int]:
    return {path: (root / path).stat().st_mtime_ns for path in outputs}


def outputs_untouched(root: Path, outputs: Mapping[str, int]) -> bool:
    """Whether every report file is still there as it was written (none deleted or edited)."""
    for path, mtime_ns in outputs.items():
        try:
            if (root / path).stat().st_mtime_ns != mtime_ns:
                return False
        except OSError:
            return False
    return bool(outputs)
