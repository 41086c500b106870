"""The files a spec's build depends on: its local imports, transitively, and imported packages.

Scanned when tasks are created (not with doit's ``calc_dep``) so that ``doit list --status`` and
``doit info`` see the same dependencies a run uses. The scan errs on the side of more
dependencies: an import inside a comment still counts if the file exists, which can only cause an
unneeded rebuild, never a stale pass.
"""

from __future__ import annotations

import errno
import json
import os
import posixpath
import stat
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.lazy_pattern import LazyPattern
from astest_tasks.core.project_source import NotReadable, read_named_file
from astest_tasks.core.state_files import read_state_file

SCAN_CACHE_FORMAT = 1
RACY_MARGIN_NS = 2_000_000_000  # coarse filesystem timestamps (FAT: 2 s)
# Generated sources (embedded tables) can be large; past this, a file is not scanned for imports
# (asc would take minutes on it anyway), and reading it cannot fill the planning's memory.
MAX_SCANNED_SOURCE_BYTES = 64 * 1024 * 1024

# `import x from "./a"`, `import { x } from '../b'`, `export * from "./c"`, `import "./d"`.
_FROM = LazyPattern(r"""\bfrom\s*["']([^"'\n]+)["']""")
_BARE_IMPORT = LazyPattern(r"""\bimport\s*["']([^"'\n]+)["']""")


@frozen
class ImportScan:
    local_files: tuple[str, ...]  # posix paths relative to the project root, the spec included
    packages: tuple[str, ...]  # npm package names imported anywhere in those files
    # Relative imports that resolve to no file yet, each as the paths asc would try (x.ts,
    # x/index.ts): a file another doit task generates (its target), or a broken import.
    missing: tuple[tuple[str, ...], ...] = ()


class ImportScanCache:
    """Each file's import specifiers, keyed by the file's state (mtime and size).

    Task creation scans every spec's imports on every doit call, ``doit list`` and no-op runs
    included; with the cache, an unchanged file is not read again. Only the specifiers are kept:
    resolving them checks which files exist now, so a module that appears or disappears is
    seen by the next call. One instance is one call's planning, which looks at each file and
    each import's candidate once, however many specs import it.

    The cache file is ours but sits where a pull request can commit anything: it is read through
    core/state_files.py (a symlink or a FIFO there is no cache), and an entry of any other shape
    than ours is dropped, so its file is scanned again.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._entries: dict[str, dict[str, object]] = {}
        self._dirty = False
        self._saved_ns = 0
        # What this call found, by file: a call plans at one moment, and a file edited while it
        # plans is seen by doit's own check of the build's file_dep (issue 40).
        self._found_now: dict[str, list[str] | None] = {}
        self._files_now: dict[str, bool] = {}
        text = read_state_file(path)
        try:
            data = None if text is None else parse_json(text)
        except ValueError:
            return  # a broken cache: scan everything, write a new one
        if isinstance(data, dict) and data.get("format") == SCAN_CACHE_FORMAT:
            entries = data.get("files")
            saved = data.get("saved_ns")
            if isinstance(entries, dict) and type(saved) is int:
                self._entries = {
                    key: entry for key, entry in entries.items() if _well_formed(entry)
                }
                self._saved_ns = saved

    def specifiers(self, file: str, key: str) -> list[str] | None:
        """The file's import specifiers, or None when it cannot be read: looked at once per
        call, however many specs import it (the shared library of a suite: issue 40)."""
        try:
            return self._found_now[file]
        except KeyError:
            found = self._found_now[file] = self._read_specifiers(file, key)
            return found

    def is_file(self, path: str) -> bool:
        """Whether ``path`` is a file, asked once per call for each candidate of an import."""
        try:
            return self._files_now[path]
        except KeyError:
            answer = self._files_now[path] = is_file(path)
            return answer

    def _read_specifiers(self, file: str, key: str) -> list[str] | None:
        try:
            state = os.stat(file)
        except OSError:
            return None
        stamp = [state.st_mtime_ns, state.st_size]
        entry = self._entries.get(key)
        # git's "racy" rule: a file modified around the time the cache was written may have
        # changed again within the same mtime tick and size; only older entries are trusted.
        trusted = state.st_mtime_ns < self._saved_ns - RACY_MARGIN_NS
        if entry is not None and entry["state"] == stamp and trusted:
            cached = entry["specifiers"]
            if isinstance(cached, list):  # of strings, as _well_formed checked
                return cached
        source = read_scanned_source(Path(file))
        if source is None:
            return None
        found = list(_specifiers(source))
        self._entries[key] = {"state": stamp, "specifiers": found}
        self._dirty = True
        return found

    def save(self) -> None:
        if not self._dirty:
            return
        document = {
            "format": SCAN_CACHE_FORMAT,
            "saved_ns": time.time_ns(),
            "files": self._entries,
        }
        try:
            write_text_atomic(self._path, json.dumps(document, sort_keys=True) + "\n")
        except OSError:
            return  # a cache we cannot write only costs a rescan next time
        self._dirty = False


def _well_formed(entry: object) -> bool:
    """Whether a cache entry has the shape ``specifiers`` writes: ``{"state": [mtime_ns, size],
    "specifiers": [str, ...]}``."""
    if not isinstance(entry, dict):
        return False
    state, found = entry.get("state"), entry.get("specifiers")
    return (
        isinstance(state, list)
        and len(state) == 2
        and all(type(number) is int for number in state)
        and isinstance(found, list)
        and all(isinstance(specifier, str) for specifier in found)
    )


def scan_imports(
    project_root: Path, spec_path: str, cache: ImportScanCache | None = None
) -> ImportScan:
    """Follow relative imports from ``spec_path`` (relative to ``project_root``)."""
    # Paths as text, joined with os.path: the paths here are normalised already, so a Path
    # would give the same file at about ten times the cost, for every import of every spec.
    root = str(project_root)
    file_exists = is_file if cache is None else cache.is_file
    seen: set[str] = set()
    packages: set[str] = set()
    missing: set[tuple[str, ...]] = set()
    pending = [posixpath.normpath(spec_path)]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        found = _file_specifiers(root, current, cache)
        for specifier in found or ():
            if specifier.startswith("."):
                candidates = _candidates(posixpath.dirname(current), specifier)
                resolved = next(
                    (path for path in candidates if file_exists(os.path.join(root, path))), None
                )
                if resolved is None:
                    missing.add(tuple(candidates))
                elif resolved not in seen:
                    pending.append(resolved)
            elif not specifier.startswith("~lib/"):
                packages.add(package_name(specifier))
    return ImportScan(
        local_files=tuple(sorted(seen)),
        packages=tuple(sorted(packages)),
        missing=tuple(sorted(missing)),
    )


def _file_specifiers(root: str, path: str, cache: ImportScanCache | None) -> list[str] | None:
    file = os.path.join(root, path)
    if cache is not None:
        return cache.specifiers(file, path)
    source = read_scanned_source(Path(file))
    return None if source is None else list(_specifiers(source))


def read_scanned_source(file: Path) -> str | None:
    """A spec's or an import's text, or None when it is not a regular file within the cap.

    Only the regular-file and size rules of core/project_source.py apply: an import may lie
    outside the project (a monorepo's shared folder). A FIFO (which a plain read would wait on
    for ever, hanging every doit call's planning), a device or a huge file is not scanned."""
    try:
        data = read_named_file(file, MAX_SCANNED_SOURCE_BYTES)
    except (OSError, ValueError, NotReadable):
        return None
    return data.decode("utf-8", errors="replace")


# The errors pathlib's is_file (Python 3.11 and 3.12) reads as "no such file": any other, a name
# too long or a folder not ours to read, stops the planning with its message, as it always has.
_NOT_A_FILE_ERRNOS: Final = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})
_NOT_A_FILE_WINERRORS: Final = frozenset({21, 123, 1921})  # not ready, bad name, bad link


def is_file(path: str) -> bool:
    """``Path(path).is_file()`` without making a Path (``os.path.isfile`` says False for every
    error, which would turn a broken import into a missing one)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError as error:
        if error.errno in _NOT_A_FILE_ERRNOS:
            return False
        if getattr(error, "winerror", None) in _NOT_A_FILE_WINERRORS:
            return False
        raise
    except ValueError:  # a NUL in the name
        return False


def package_name(specifier: str) -> str:
    """``json-as/assembly`` -> ``json-as``; ``@scope/pkg/x`` -> ``@scope/pkg``."""
    parts = specifier.split("/")
    if specifier.startswith("@") and len(parts) > 1:
        return "/".join(parts[:2])
    return parts[0]


def _specifiers(source: str) -> Iterable[str]:
    for pattern in (_FROM, _BARE_IMPORT):
        for match in pattern.finditer(source):
            yield match.group(1).strip()


def _candidates(directory: str, specifier: str) -> list[str]:
    base = posixpath.normpath(posixpath.join(directory, specifier))
    # The order asc tries: the file itself with .ts, then a folder's index.ts.
    candidates = [base + ".ts", posixpath.join(base, "index.ts")]
    if base.endswith(".ts"):
        candidates.insert(0, base)
    return candidates
