"""Find the spec files a mode's ``input`` globs select, and give each a readable, unique id.

The id names the spec in task names (``astest:run:<mode>:<id>``) and in artifact paths. It is the
spec's path below the static part of its glob (``assembly/__tests__/nested/array.spec.ts`` under
``assembly/__tests__/**/*.spec.ts`` is ``nested/array``), so two specs that share a basename in
different folders get different ids; as-test 1.0.7 gives them clashing artifact names instead.

A file name may hold what a task name must not (``task_name_safe``): doit refuses a task whose
name has ``=``, and prints every task's name as its title, where a control character or a line
break would reach the terminal and ``##[`` would be read by a GitHub Actions runner as a command.
Such characters are percent-encoded in the id (``a=b.spec.ts`` is ``a%3Db``), and so is ``%``
itself, which keeps two different paths two different ids; every other id is its path, as before.
"""

from __future__ import annotations

import glob
import posixpath
from collections.abc import Iterable, Sequence
from pathlib import Path

from astest_tasks.config.input_exclusions import expand_braces, glob_ignores
from astest_tasks.core.frozen import frozen
from astest_tasks.core.lazy_pattern import LazyPattern

SPEC_SUFFIX = ".spec.ts"
# A set, not a pattern: each spec pattern's parts are looked through on every call (issue 40).
_GLOB_CHARS = frozenset("*?[]{}")
# What a task name must not hold as it is: our escape character, doit's `=`, control characters
# and Unicode's line breaks, and the `[` of `##[` (a runner's legacy command, anywhere in a line).
_ASCII_ENCODED = frozenset("%=")  # the printable ASCII characters _NOT_IN_TASK_NAME takes
_NOT_IN_TASK_NAME = LazyPattern("[%=\x00-\x1f\x7f-\x9f\u2028\u2029]|(?<=##)\\[")


@frozen
class Spec:
    path: str  # posix, relative to the project root (absolute only if outside it)
    spec_id: str

    @property
    def basename(self) -> str:
        return posixpath.basename(self.path)


def discover_specs(
    project_root: Path,
    patterns: Sequence[str],
    suffix: str = SPEC_SUFFIX,
    ignore: Sequence[str] = (),
) -> list[Spec]:
    """Glob ``patterns`` from ``project_root``; keep ``*<suffix>`` files (``*.spec.ts``, or
    ``*.fuzz.ts`` for fuzz targets), sorted, de-duplicated, less those an ``ignore`` pattern
    (``!`` and all, input_exclusions.glob_ignores) takes out."""
    base_of: dict[str, str] = {}
    for pattern in patterns:
        for expanded in expand_braces(pattern.replace("\\", "/")):
            base = glob_base(expanded)
            if posixpath.isabs(base):
                base = _relative_if_inside(project_root, Path(base))
            for match in _glob(project_root, expanded):
                if match.endswith(suffix) and not _ignored(project_root, match, ignore):
                    base_of.setdefault(match, base)
    paths = sorted(base_of)
    return _assign_ids(paths, base_of, suffix)


def _ignored(project_root: Path, path: str, ignore: Sequence[str]) -> bool:
    if not ignore:
        return False
    root = project_root.resolve().as_posix()
    absolute = posixpath.join(root, path)  # `path` itself when it lies outside the project
    relative = posixpath.relpath(absolute, root)  # ../shared/x.spec.ts, as glob gives it
    return any(glob_ignores(relative, absolute, pattern) for pattern in ignore)


def glob_base(pattern: str) -> str:
    """The longest leading run of path components without glob characters."""
    parts = []
    for part in pattern.split("/")[:-1]:
        if not _GLOB_CHARS.isdisjoint(part):
            break
        parts.append(part)
    return posixpath.normpath("/".join(parts)) if parts else "."


def _glob(project_root: Path, pattern: str) -> Iterable[str]:
    if posixpath.isabs(pattern):
        for found in glob.glob(pattern, recursive=True):
            yield _relative_if_inside(project_root, Path(found))
        return
    for found in glob.glob(pattern, root_dir=project_root, recursive=True):
        normalised = posixpath.normpath(found.replace("\\", "/"))
        if (project_root / normalised).is_file():
            yield normalised


def _relative_if_inside(project_root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(project_root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _assign_ids(paths: list[str], base_of: dict[str, str], suffix: str) -> list[Spec]:
    def short_id(path: str) -> str:
        base = base_of[path]
        relative = path if base == "." else posixpath.relpath(path, base)
        return relative[: -len(suffix)]

    ids = {path: short_id(path) for path in paths}
    # Where two specs reach the same short id, both fall back to their project-relative path.
    # A fallback can in turn equal another spec's short id, so repeat until nothing collides;
    # it ends because project-relative paths are unique.
    while True:
        users: dict[str, list[str]] = {}
        for path, spec_id in ids.items():
            users.setdefault(spec_id, []).append(path)
        clashing = [path for group in users.values() if len(group) > 1 for path in group]
        if not clashing:
            break
        for path in clashing:
            ids[path] = path.lstrip("/")[: -len(suffix)]
    return [Spec(path=path, spec_id=task_name_safe(ids[path])) for path in paths]


def task_name_safe(spec_id: str) -> str:
    """``spec_id`` as a part of a task name: what doit or a CI runner would act on percent-encoded
    (as UTF-8 bytes, ``%3D``), the rest unchanged. ``urllib.parse.unquote`` reverses it, and two
    different ids stay different: ``%`` itself is encoded."""
    # Nothing to encode, as most ids: of ASCII, the pattern takes the characters that are not
    # printable, "%", "=" and a "[" after "##". Compiling it (its class reaches past Latin-1)
    # costs 1.5 million instructions, which a call with nothing to do saves (issue 40).
    ascii_printable = spec_id.isascii() and spec_id.isprintable()
    if ascii_printable and not _ASCII_ENCODED & set(spec_id) and "##[" not in spec_id:
        return spec_id
    return _NOT_IN_TASK_NAME.sub(
        lambda match: "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8")), spec_id
    )
