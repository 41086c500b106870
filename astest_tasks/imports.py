"""The files a spec's build depends on: its local imports, transitively, and imported packages.

Scanned when tasks are created (not with doit's ``calc_dep``) so that ``doit list --status`` and
``doit info`` see the same dependencies a run uses. The scan errs on the side of more
dependencies: an import inside a comment still counts if the file exists, which can only cause an
unneeded rebuild, never a stale pass.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

# `import x from "./a"`, `import { x } from '../b'`, `export * from "./c"`, `import "./d"`.
_FROM = re.compile(r"""\bfrom\s*["']([^"'\n]+)["']""")
_BARE_IMPORT = re.compile(r"""\bimport\s*["']([^"'\n]+)["']""")


@dataclass(frozen=True)
class ImportScan:
    local_files: tuple[str, ...]  # posix paths relative to the project root, the spec included
    packages: tuple[str, ...]  # npm package names imported anywhere in those files


def scan_imports(project_root: Path, spec_path: str) -> ImportScan:
    """Follow relative imports from ``spec_path`` (relative to ``project_root``)."""
    seen: set[str] = set()
    packages: set[str] = set()
    pending = [posixpath.normpath(spec_path)]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            source = (project_root / current).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for specifier in _specifiers(source):
            if specifier.startswith("."):
                resolved = _resolve_relative(project_root, posixpath.dirname(current), specifier)
                if resolved is not None and resolved not in seen:
                    pending.append(resolved)
            elif not specifier.startswith("~lib/"):
                packages.add(package_name(specifier))
    return ImportScan(local_files=tuple(sorted(seen)), packages=tuple(sorted(packages)))


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


def _resolve_relative(project_root: Path, directory: str, specifier: str) -> str | None:
    base = posixpath.normpath(posixpath.join(directory, specifier))
    # The order asc tries: the file itself with .ts, then a folder's index.ts.
    candidates = [base + ".ts", posixpath.join(base, "index.ts")]
    if base.endswith(".ts"):
        candidates.insert(0, base)
    for candidate in candidates:
        if (project_root / candidate).is_file():
            return candidate
    return None
