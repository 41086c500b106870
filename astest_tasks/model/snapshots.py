"""as-test snapshot files: location, key canonicalisation, the ``.snap`` format, and a store.

Everything mirrors as-test 1.1.0 (``SnapshotStore`` and helpers in ``cli/commands/run-core.ts``;
docs/design/host-contract.md §6) so that files written by either tool are read identically by the
other. Two later rules are switched on by the installed version (``run_rules.RunRules``): from
1.1.6 the guest's key prefix (its full relative path since then) is replaced by the spec's
basename, so older ``.snap`` files still match; from 1.2.0 the file mirrors the spec's path under
its input glob's static base (``spec_relative_path``) and the ``.snap.json`` fallbacks are gone
(1.8.0's ``cli/commands/snapshot-store.ts``). The store writes only in update runs.

Where as-test relies on JavaScript semantics (regex ``.``, ``String.prototype.trim``, number
formatting) the helpers below reproduce them, rather than Python's slightly different ones.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Final

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import as_node_writes, encode_wtf8
from astest_tasks.core.js_values import js_number_text, js_trim
from astest_tasks.core.json_text import parse_json, reject_constant
from astest_tasks.core.project_source import NotReadable, read_project_file
from astest_tasks.model.snapshot_paths import (
    MAX_SNAPSHOT_BYTES,
    input_snapshot_path,
    js_basename,
    snapshot_path,
)
from astest_tasks.model.snapshot_update import SnapshotUpdate

DEFAULT_PREAMBLE: Final = "\n".join(
    [
        "# as-test snapshot file",
        "#",
        "# IDs use this format:",
        "#   Suite > test",
        "#   Suite > test [name]",
        "#   Suite > test #2",
        "#",
        "# Examples:",
        '#   test("renders card", () => {',
        "#     expect(view()).toMatchSnapshot();",
        "#   })",
        "#   -> renders card",
        "#",
        '#   test("renders card", () => {',
        '#     expect(view()).toMatchSnapshot("mobile");',
        "#   })",
        "#   -> renders card [mobile]",
        "#",
        '#   test("renders card", () => {',
        "#     expect(header()).toMatchSnapshot();",
        "#     expect(body()).toMatchSnapshot();",
        "#   })",
        "#   -> renders card",
        "#   -> renders card #2",
        "#",
        '#   describe("Card", () => {',
        '#     test("renders", () => {',
        "#       expect(view()).toMatchSnapshot();",
        "#     })",
        "#   })",
        "#   -> Card > renders",
        "#",
        "# Single-line values are written directly below the ID.",
        "# Multi-line values use delimiters:",
        "#   <<<",
        "#   ...",
        "#   >>>",
    ]
)

MISSING_SNAPSHOT_EXPECTED: Final = json.dumps("<missing snapshot>")
KEY_SEPARATOR: Final = "::"

_BLOCK_OPEN: Final = "<<<"
_BLOCK_CLOSE: Final = ">>>"
_HEADER_START: Final = "=== "

# JavaScript's regex "." matches anything but these line terminators (Python's only skips "\n").
_JS_DOT: Final = "[^\n\r\u2028\u2029]"
_JS_LINE_BREAK: Final = re.compile(r"\r?\n")
_HEADER_LINE: Final = re.compile(rf"=== ({_JS_DOT}+) ===")
# Legacy local key forms, tried in this order (canonicalizeSnapshotLocalKey).
_LEGACY_INDEXED_NAME: Final = re.compile(rf"({_JS_DOT}*)::[0-9]+::({_JS_DOT}+)")
_LEGACY_NAME: Final = re.compile(rf"({_JS_DOT}*)::([^:]+)")
_LEGACY_INDEX: Final = re.compile(rf"({_JS_DOT}*)::([0-9]+)")
_DIGITS: Final = re.compile("[0-9]+")
_UNSAFE_DISAMBIGUATOR_CHARS: Final = re.compile("[^A-Za-z0-9._-]")


def _legacy_disambiguator(spec_path: str, project_root: Path, duplicates: Collection[str]) -> str:
    """The ``<disamb>`` of ``<base>.<disamb>.snap.json``: the spec's directory, flattened."""
    if js_basename(spec_path) not in duplicates:
        return ""
    # Node's path.relative(cwd, spec): relative specs are normalised, absolute ones made relative.
    relative = os.path.relpath(project_root / spec_path, project_root)
    directory = posixpath.dirname(Path(relative).as_posix())
    if directory in ("", "."):
        return ""
    flattened = re.sub("[\\\\/]+", "__", directory)
    return _UNSAFE_DISAMBIGUATOR_CHARS.sub("_", flattened).strip("_")


# --- keys ------------------------------------------------------------------------------------


def _canonicalize_local_key(local_key: str) -> str:
    """Rewrite legacy suffixes: ``X::0`` -> ``X``, ``X::N`` -> ``X #N+1``, names -> ``X [name]``."""
    indexed_name = _LEGACY_INDEXED_NAME.fullmatch(local_key)
    if indexed_name:
        return f"{indexed_name[1]} [{indexed_name[2]}]"
    name = _LEGACY_NAME.fullmatch(local_key)
    if name and not _DIGITS.fullmatch(name[2]):
        return f"{name[1]} [{name[2]}]"
    index = _LEGACY_INDEX.fullmatch(local_key)
    if index:
        # as-test goes through a JavaScript number, so absurdly long indices round (or overflow).
        number = float(index[2])
        if number == float("inf"):
            return local_key
        return index[1] if number == 0 else f"{index[1]} #{js_number_text(number + 1)}"
    return local_key


def canonicalize_key(key: str) -> str:
    """Canonical form of a snapshot key: the part after the first ``::`` loses legacy suffixes.

    A lone surrogate (from a test name) becomes U+FFFD, as Node writes it into the file, so a key
    read back from the file still matches the spec's.
    """
    key = as_node_writes(key)
    separator_at = key.find(KEY_SEPARATOR)
    if separator_at < 0:
        return _canonicalize_local_key(key)
    local_start = separator_at + len(KEY_SEPARATOR)
    return key[:local_start] + _canonicalize_local_key(key[local_start:])


def qualify_key(spec_basename: str, local_key: str) -> str:
    return f"{spec_basename}{KEY_SEPARATOR}{local_key}"


def normalize_key_prefix(key: str, spec_basename: str) -> str:
    """``normalizeSnapshotKeyPrefix`` (as-test 1.1.6+): whatever the guest put before the first
    ``::`` (its full relative path) becomes the spec's basename, the prefix stored files use."""
    separator_at = key.find(KEY_SEPARATOR)
    if separator_at < 0:
        return key
    return qualify_key(spec_basename, key[separator_at + len(KEY_SEPARATOR) :])


def _localize_key(spec_basename: str, key: str) -> str:
    prefix = qualify_key(spec_basename, "")
    return key[len(prefix) :] if key.startswith(prefix) else key


# --- the .snap format ------------------------------------------------------------------------


@dataclass
class SnapshotFile:
    """A parsed ``.snap`` file."""

    preamble: str
    # Qualified canonical key "<spec basename>::<local>" -> value, in file order.
    entries: dict[str, str]
    # True if a legacy key form was rewritten, so as-test would rewrite the file.
    normalized: bool


def _is_comment(line: str) -> bool:
    trimmed = js_trim(line)
    return trimmed.startswith("#") or trimmed.startswith("//")


def _line_at(lines: list[str], index: int) -> str:
    return lines[index] if index < len(lines) else ""


def _read_value(lines: list[str], index: int) -> tuple[str, int]:
    """Read the value starting at ``lines[index]``; return it and the index after it."""
    if _line_at(lines, index) != _BLOCK_OPEN:
        return _line_at(lines, index), index + 1
    index += 1
    block_start = index
    while index < len(lines) and lines[index] != _BLOCK_CLOSE:
        index += 1
    value = "\n".join(lines[block_start:index])
    if index < len(lines):
        index += 1  # the closing ">>>"; an unterminated block runs to the end of the file
    return value, index


def _skip_blank_and_comment_lines(lines: list[str], index: int) -> int:
    while index < len(lines) and not lines[index].startswith(_HEADER_START):
        if lines[index] and not _is_comment(lines[index]):
            break
        index += 1
    return index


def _trim_preamble(lines: list[str]) -> str:
    end = len(lines)
    while end > 0 and not js_trim(lines[end - 1]):
        end -= 1
    return "\n".join(lines[:end])


def parse_snapshot_text(text: str, spec_basename: str) -> SnapshotFile:
    """Parse ``.snap`` text exactly as as-test's ``parseSnapshotText`` does; it never fails.

    Comment and blank lines before the first entry form the preamble; other stray lines, and
    comments between entries, are dropped.
    """
    lines = _JS_LINE_BREAK.split(text)
    entries: dict[str, str] = {}
    preamble_lines: list[str] = []
    normalized = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line or _is_comment(line):
            if not entries:
                preamble_lines.append(line)
            index += 1
            continue
        header = _HEADER_LINE.fullmatch(line)
        index += 1
        if not header:
            continue
        value, index = _read_value(lines, index)
        index = _skip_blank_and_comment_lines(lines, index)
        qualified = qualify_key(spec_basename, header[1])
        canonical = canonicalize_key(qualified)
        normalized = normalized or canonical != qualified
        # A repeated key keeps its first position and its last value, like a JavaScript object.
        entries[canonical] = value
    return SnapshotFile(_trim_preamble(preamble_lines), entries, normalized)


def format_snapshot_file(entries: Mapping[str, str], spec_basename: str, preamble: str) -> str:
    """Render entries byte-for-byte like as-test's ``formatSnapshotFile``; "" if there are none.

    as-test derives the spec basename from the ``.snap`` path; for any spec ending in ``.ts``
    that is the same basename, so it is passed in directly.
    """
    seen: set[str] = set()
    sections: list[str] = []
    for key, value in entries.items():
        local_key = _canonicalize_local_key(_localize_key(spec_basename, key))
        if local_key in seen:
            continue
        seen.add(local_key)
        if "\n" in value:
            sections.append(f"=== {local_key} ===\n{_BLOCK_OPEN}\n{value}\n{_BLOCK_CLOSE}")
        else:
            sections.append(f"=== {local_key} ===\n{value}")
    if not sections:
        return ""
    prefix = f"{preamble}\n\n" if preamble else ""
    return prefix + "\n\n".join(sections) + "\n"


# --- the store -------------------------------------------------------------------------------


class SnapshotVerdict(Enum):
    MATCHED = "matched"
    MISSING = "missing"
    MISMATCHED = "mismatched"
    CREATED = "created"
    UPDATED = "updated"
    DISABLED = "disabled"  # --no-snapshot: not compared, not counted


@frozen
class SnapshotAnswer:
    ok: bool
    # What goes back to the guest: the stored value, or MISSING_SNAPSHOT_EXPECTED.
    expected: str
    verdict: SnapshotVerdict
    key: str  # canonical


def _read_first(project_root: Path, candidates: Sequence[Path]) -> tuple[Path, str] | None:
    """The first candidate that exists, and its text; None when none does.

    Read as core/project_source.py reads the project's own files (our hidden ``.as-test/``
    allowed): a committed snapshot file that is a symlink out of the project, a FIFO or a device
    is a clear error, never read (its text would go back to the spec and into the report), and
    never written through (the run stops before any update)."""
    for candidate in candidates:
        try:
            data = read_project_file(
                project_root, str(candidate), hidden_folders=True, max_bytes=MAX_SNAPSHOT_BYTES
            )
        except FileNotFoundError:
            continue
        except NotReadable as refused:
            raise UserError(
                f"snapshot file {candidate} {refused}, so it was not read; fix: make it a "
                "regular file inside the project, or delete it to start with no snapshots"
            ) from None
        except OSError as error:
            raise UserError(
                f"cannot read snapshot file {candidate}: {error.strerror or error}; "
                "fix: make it a readable file, or delete it to start with no snapshots"
            ) from error
        return candidate, _decode(data, candidate)
    _refuse_a_folder_outside(project_root, candidates[0])
    return None


def _refuse_a_folder_outside(project_root: Path, path: Path) -> None:
    """A snapshot file not there yet is written (by an update run) where its folder really is:
    a committed symlink from the snapshot folder (or one above it) out of the project would send
    the write outside, so it is an error here, before the run, as a file there would be."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        folder.resolve().relative_to(project_root.resolve())
    except (OSError, ValueError, RuntimeError):
        raise UserError(
            f"snapshot folder {path.parent} leads outside the project (a symlink), so no "
            "snapshot is read or written there; fix: make it a folder inside the project"
        ) from None


def _decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UserError(
            f"snapshot file {path} is not valid UTF-8 (byte {error.start}); "
            "fix: repair the file, or delete it and re-run with --create-snapshots"
        ) from error


def _parse_legacy_json(text: str, path: Path) -> SnapshotFile:
    """A legacy ``.snap.json``: one flat JSON object of fully qualified keys to string values."""

    def corrupt(problem: str) -> UserError:
        return UserError(
            f"legacy snapshot file {path} {problem}; fix: repair it (a JSON object of "
            "string values), or delete it and re-run with --create-snapshots"
        )

    try:
        data = parse_json(text, parse_constant=reject_constant)
    except ValueError as error:
        raise corrupt(f"is not valid JSON ({error})") from error
    if not isinstance(data, dict):
        raise corrupt(f"holds a JSON {type(data).__name__}, not an object")
    entries: dict[str, str] = {}
    normalized = False
    for key, value in data.items():
        if not isinstance(value, str):
            raise corrupt(f"has a non-string value for {key!r}")
        canonical = canonicalize_key(key)
        normalized = normalized or canonical != key
        entries[canonical] = value
    return SnapshotFile(preamble="", entries=entries, normalized=normalized)


@dataclass
class SnapshotStore:
    """Snapshots of one spec, answering ``snapshot:assert`` read-only.

    Loaded from the spec's ``.snap`` file, or from a legacy ``.snap.json`` (section 6). Counters
    follow what the run summary needs; as-test's single "failed" count is ``failed``.
    """

    spec_basename: str
    file_path: Path  # the .snap file as-test reads first and would write
    source_path: Path | None  # the file actually read (None: no snapshots yet), for cache keys
    preamble: str
    entries: dict[str, str]  # qualified canonical key -> value, in file order
    # Read from a legacy file or with legacy keys: as-test would rewrite it as ``file_path``.
    needs_rewrite: bool = False
    matched: int = 0
    missing: int = 0
    mismatched: int = 0
    missing_keys: list[str] = field(default_factory=list)  # distinct, first-seen order
    update: SnapshotUpdate = SnapshotUpdate.NONE
    # as-test 1.1.6+: the guest's key prefix is replaced by the spec's basename before lookup.
    normalize_prefix: bool = False
    created: int = 0
    updated: int = 0
    asserted: set[str] = field(default_factory=set)
    # --no-snapshot (as-test 1.8): every assertion is answered ok with its own value, uncounted.
    disabled: bool = False

    @classmethod
    def load(
        cls,
        project_root: Path,
        spec_path: str,
        snapshot_dir: str,
        duplicate_spec_basenames: Collection[str] = (),
        *,
        input_patterns: Sequence[str] | None = None,
        normalize_prefix: bool = False,
    ) -> SnapshotStore:
        """Load a spec's snapshots; a missing file is an empty store.

        ``duplicate_spec_basenames`` (basenames shared by several selected specs) enables the
        second legacy fallback, ``<base>.<spec dir flattened>.snap.json``. ``input_patterns``
        (as-test 1.2.0+) places the file below the input's static base, with no fallbacks;
        ``normalize_prefix`` is as-test 1.1.6+'s key rule (``normalize_key_prefix``).
        Raises ``UserError`` if the file cannot be read or decoded, or is not one of the
        project's regular files (``_read_first``).
        """
        spec_basename = js_basename(spec_path.replace("\\", "/"))
        legacy: list[Path] = []
        if input_patterns is not None:
            relative = input_snapshot_path(project_root, spec_path, snapshot_dir, input_patterns)
            file_path = project_root / relative
        else:
            file_path = project_root / snapshot_path(spec_path, snapshot_dir)
            directory = project_root / (snapshot_dir or ".")
            base = spec_basename.removesuffix(".ts")
            legacy.append(directory / f"{base}.snap.json")
            disambiguator = _legacy_disambiguator(spec_path, project_root, duplicate_spec_basenames)
            if disambiguator:
                legacy.append(directory / f"{base}.{disambiguator}.snap.json")
        found = _read_first(project_root, [file_path, *legacy])
        if found is None:
            return cls(spec_basename, file_path, None, "", {}, normalize_prefix=normalize_prefix)
        source, text = found
        if source == file_path:
            parsed = parse_snapshot_text(text, spec_basename)
        else:
            parsed = _parse_legacy_json(text, source)
        needs_rewrite = source != file_path or parsed.normalized
        return cls(
            spec_basename,
            file_path,
            source,
            parsed.preamble,
            parsed.entries,
            needs_rewrite,
            normalize_prefix=normalize_prefix,
        )

    @property
    def failed(self) -> int:
        return self.missing + self.mismatched

    def assert_snapshot(self, key: str, actual: str) -> SnapshotAnswer:
        """Compare ``actual`` with the stored value (exact string comparison) and count it."""
        actual = as_node_writes(actual)  # as it would read back from the file
        canonical = canonicalize_key(key)
        if self.normalize_prefix:
            canonical = normalize_key_prefix(canonical, self.spec_basename)
        self.asserted.add(canonical)
        if self.disabled:
            return SnapshotAnswer(True, actual, SnapshotVerdict.DISABLED, canonical)
        stored = self.entries.get(canonical)
        if stored is None and self.update.creates:
            self.entries[canonical] = actual
            self.created += 1
            return SnapshotAnswer(True, actual, SnapshotVerdict.CREATED, canonical)
        if stored is not None and stored != actual and self.update.replaces:
            self.entries[canonical] = actual
            self.updated += 1
            return SnapshotAnswer(True, actual, SnapshotVerdict.UPDATED, canonical)
        if stored is None:
            self.missing += 1
            if canonical not in self.missing_keys:
                self.missing_keys.append(canonical)
            return SnapshotAnswer(
                False, MISSING_SNAPSHOT_EXPECTED, SnapshotVerdict.MISSING, canonical
            )
        if stored == actual:
            self.matched += 1
            return SnapshotAnswer(True, stored, SnapshotVerdict.MATCHED, canonical)
        self.mismatched += 1
        return SnapshotAnswer(False, stored, SnapshotVerdict.MISMATCHED, canonical)

    @staticmethod
    def reply_payload(answer: SnapshotAnswer) -> bytes:
        """The CALL reply payload for the guest: ``"1\\n<expected>"`` or ``"0\\n<expected>"``."""
        return encode_wtf8(f"{1 if answer.ok else 0}\n{answer.expected}")

    @property
    def dirty(self) -> bool:
        """Whether as-test would write the file after this run (docs/design/host-contract.md §6)."""
        return self.created > 0 or self.updated > 0 or self.needs_rewrite

    def obsolete_keys(self) -> list[str]:
        """This spec's stored entries that no assertion of the run asked for."""
        prefix = f"{self.spec_basename}::"
        return [k for k in self.entries if k.startswith(prefix) and k not in self.asserted]

    def save_if_updated(self) -> bool:
        """Write the file, atomically, when an update run changed it; never in a plain run.

        A plain run could also rewrite a legacy file as as-test does, but it would then modify a
        user's file without being asked to; the next update run converts it.
        """
        if self.update is SnapshotUpdate.NONE or not self.dirty or not self.entries:
            return False
        write_text_atomic(self.file_path, self.render())
        return True

    def render(self) -> str:
        """The file text as-test would write for the current entries ("" when there are none).

        A file that existed keeps its preamble (a legacy JSON file has none); a new one gets
        DEFAULT_PREAMBLE.
        """
        preamble = self.preamble if self.source_path is not None else DEFAULT_PREAMBLE
        return format_snapshot_file(self.entries, self.spec_basename, preamble)
