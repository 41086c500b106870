"""What the summary remembers between runs, so that a run where no result changed rewrites nothing.

The reports (every format in output/formats, and the coverage files) are a function of the result
files and of the options that shape them (the summary plan, our version, the formats' files). The
state file, beside report.json, holds a digest of all of those and the modification time of
every file written from them. When the digest and the files are as they were, the reports are
left alone.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.records import decode, encode

STATE_FILE = "report-state.json"
_FORMAT = 1


@dataclass(frozen=True)
class ReportState:
    digest: str
    outputs: Mapping[str, int]  # path (relative to the project root) -> mtime in ns when written


def file_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def reports_digest(options: Mapping[str, object], result_digests: Sequence[str]) -> str:
    """One digest of the options that shape the reports and of every result file, in order."""
    text = json.dumps({"options": options, "results": list(result_digests)}, sort_keys=True)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=20).hexdigest()


def load_state(path: Path) -> ReportState | None:
    """The state the last report writer left, or None (missing, unreadable, another format)."""
    try:
        data = parse_json(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            return None
        return decode(ReportState, data)
    except (OSError, ValueError):
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
