"""Find Node.js and the npm packages a project compiles with, and their versions.

Packages are looked up the way Node resolves them: in ``node_modules`` of the project directory,
then of each parent directory. That keeps monorepos and npm workspaces working.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
from pathlib import Path

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import for_stream
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.project_source import file_signature

ASSEMBLYSCRIPT = "assemblyscript"
AS_TEST = "as-test"
WASI_SHIM = "@assemblyscript/wasi-shim"

# The versions our own tests pin; a missing package's fix names them.
PINNED_VERSIONS = {ASSEMBLYSCRIPT: "0.28.14", AS_TEST: "1.0.7", WASI_SHIM: "0.1.0"}


@frozen
class Package:
    name: str
    root: Path
    version: str

    @property
    def manifest(self) -> Path:
        return self.root / "package.json"


@frozen
class Toolchain:
    node: str
    assemblyscript: Package
    as_test: Package
    wasi_shim: Package | None

    @property
    def asc_js(self) -> Path:
        return self.assemblyscript.root / "bin" / "asc.js"


def find_package(project_root: Path, name: str) -> Package | None:
    for directory in (project_root, *project_root.parents):
        root = directory / "node_modules" / name
        manifest = root / "package.json"
        if manifest.is_file():
            return Package(name=name, root=root, version=_read_version(manifest))
    return None


def require_package(project_root: Path, name: str) -> Package:
    package = find_package(project_root, name)
    if package is None:
        pinned = PINNED_VERSIONS.get(name)
        spec = f"{name}@{pinned}" if pinned else name
        raise UserError(
            f"npm package {name} is not installed for {project_root}; "
            f"fix: run `npm install --save-dev {spec}` in the project directory"
        )
    return package


def find_node() -> str:
    node = shutil.which("node")
    if node is None:
        raise UserError(
            "Node.js was not found on PATH (the AssemblyScript compiler runs on it); "
            "fix: install Node.js 18 or newer and make `node` available on PATH"
        )
    return node


MIN_NODE_MAJOR = 18


@functools.lru_cache(maxsize=8)
def check_node_version(node: str) -> None:
    """Refuse a Node.js too old for the compiler, with its version, before a compile fails
    obscurely. Asked once per process and executable, and only when something is to be built."""
    try:
        output = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        raise UserError(f"could not run {node} --version: {exc}; fix: reinstall Node.js") from None
    match = re.match(r"v?(\d+)\.", output)
    if match is None:
        return  # an unusual build of Node: let the compiler speak for itself
    if int(match.group(1)) < MIN_NODE_MAJOR:
        raise UserError(
            f"Node.js {output} at {node} is too old for the AssemblyScript compiler; fix: install "
            f"Node.js {MIN_NODE_MAJOR} or newer and put it first on PATH"
        )


def load_toolchain(project_root: Path, need_wasi_shim: bool) -> Toolchain:
    wasi_shim = require_package(project_root, WASI_SHIM) if need_wasi_shim else None
    return Toolchain(
        node=find_node(),
        assemblyscript=require_package(project_root, ASSEMBLYSCRIPT),
        as_test=require_package(project_root, AS_TEST),
        wasi_shim=wasi_shim,
    )


def version_combination_warning(as_test_version: str, asc_version: str) -> str | None:
    """Warn about as-test 1.0.x with assemblyscript >= 0.28.17.

    as-test 1.0.x's transform hard-codes AST node numbers that shifted in assemblyscript 0.28.17:
    tests still pass and fail, but failed assertions lose their file:line:col and coverage
    instruments nothing. as-test's own CLI says nothing about it.
    """
    if not as_test_version.startswith("1.0."):
        return None
    if _version_tuple(asc_version) < (0, 28, 17):
        return None
    return (
        f"as-test {as_test_version} with assemblyscript {asc_version}: failed assertions will "
        "have no source location and coverage will be empty (as-test 1.0.x's transform does not "
        "understand assemblyscript >= 0.28.17); fix: `npm install --save-dev "
        "assemblyscript@0.28.14`"
    )


def _version_tuple(version: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in version.split("-")[0].split("."):
        if not piece.isdigit():
            break
        parts.append(int(piece))
    return tuple(parts)


# Each manifest's version, by its file's signature when read: a call asks for the manifest of a
# package every spec imports once per spec (plan/cache_keys.py), and a watch session again each
# cycle; reading and parsing it each time was about 2 ms of a 20-spec call (issue 40). One that
# cannot be read is never kept, so it raises each time it is asked for.
_VERSIONS: dict[Path, tuple[str, str]] = {}


def _read_version(manifest: Path) -> str:
    try:
        seen = file_signature(manifest.stat())
        known = _VERSIONS.get(manifest)
        if known is not None and known[0] == seen:
            return known[1]
        data = parse_json(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(
            f"cannot read {manifest}: {exc}; fix: reinstall the package with `npm ci`"
        ) from exc
    version = data.get("version") if isinstance(data, dict) else None
    found = version if isinstance(version, str) else "unknown"
    _VERSIONS[manifest] = (seen, found)
    return found


_warned: set[str] = set()


def warn_once(message: str) -> None:
    """Print a warning to stderr once per process (task creation may run more than once)."""
    if message in _warned:
        return
    _warned.add(message)
    # A message may quote the config or a package.json: printed as inert as spec text.
    sys.stderr.write(for_stream(f"WARNING: {message}\n", sys.stderr))
