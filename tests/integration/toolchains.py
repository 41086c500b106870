"""The two as-test toolchains every integration fixture runs against, and how each is installed.

- as-test 1.0.7 with assemblyscript 0.28.14: the repository root's ``node_modules`` (``npm ci``
  in the README's test command installs it).
- as-test 1.8.0 with assemblyscript 0.28.20: ``tests/toolchains/as-test-1.8.0``, pinned by its
  own package-lock. The registry here serves as-test only up to 1.0.7, so its lock takes as-test
  from the vendored tarball beside this workspace (``../shared/vendor/as-test-1.8.0.tgz``, or
  where ``ASTEST_AS_TEST_18_TARBALL`` points); where the registry has as-test 1.8.0 and the
  tarball is absent, it is installed from the registry instead. Either way it is installed at
  most once per test session, and not at all when the installed copy matches the lock.

A machine that can get neither skips the 1.8 half with one reason; under CI (``CI=true``) that is
a failure instead, so CI always runs both halves.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

REPO = Path(__file__).resolve().parents[2]
TOOLCHAIN_18_DIR = REPO / "tests" / "toolchains" / "as-test-1.8.0"
VENDORED_TARBALL = REPO.parent / "shared" / "vendor" / "as-test-1.8.0.tgz"
TARBALL_VARIABLE = "ASTEST_AS_TEST_18_TARBALL"
INSTALL_STAMP = ".astest-installed-lock.sha256"


@dataclass(frozen=True)
class Toolchain:
    """One as-test generation with the assemblyscript it is tested with."""

    as_test: str
    assemblyscript: str
    node_modules: Path

    @property
    def id(self) -> str:
        return f"as-test-{self.as_test}"

    @property
    def is_1_8(self) -> bool:
        return self.as_test.startswith("1.8.")


AS_TEST_1_0 = Toolchain("1.0.7", "0.28.14", REPO / "node_modules")
AS_TEST_1_8 = Toolchain("1.8.0", "0.28.20", TOOLCHAIN_18_DIR / "node_modules")
TOOLCHAINS = (AS_TEST_1_0, AS_TEST_1_8)
BY_VERSION = {toolchain.as_test: toolchain for toolchain in TOOLCHAINS}


class ToolchainUnavailable(Exception):
    """The toolchain cannot be installed on this machine; the message says why and what to do."""


def ensure_installed(toolchain: Toolchain) -> None:
    if toolchain is AS_TEST_1_8:
        _ensure_1_8()
    elif not (toolchain.node_modules / "as-test" / "package.json").is_file():
        raise ToolchainUnavailable(
            "node_modules is missing: run `npm ci` in the repository root first "
            "(the README's test command does)"
        )


def _ensure_1_8() -> None:
    lock = TOOLCHAIN_18_DIR / "package-lock.json"
    stamp = TOOLCHAIN_18_DIR / "node_modules" / INSTALL_STAMP
    wanted = hashlib.sha256(lock.read_bytes()).hexdigest()
    with FileLock(_install_lock_path()):
        if stamp.is_file() and stamp.read_text().strip() == wanted:
            return
        _install_1_8()
        stamp.write_text(wanted + "\n")


def _install_lock_path() -> Path:
    """Outside the toolchain folder (npm ci empties node_modules; the folder is in git), one per
    checkout, so two clones' sessions do not wait for each other."""
    checkout = hashlib.sha256(str(TOOLCHAIN_18_DIR).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"astest-tasks-toolchain-1.8-{checkout}.lock"


def _install_1_8() -> None:
    tarball = Path(os.environ.get(TARBALL_VARIABLE) or VENDORED_TARBALL)
    if tarball.is_file():
        _install_from_tarball(tarball)
    else:
        _install_from_registry(tarball)


def _install_from_tarball(tarball: Path) -> None:
    if tarball.resolve() == VENDORED_TARBALL.resolve():
        _npm(["ci"], "npm ci from the pinned lock")
        return
    # The lock names the vendored path; a tarball elsewhere is installed by name, unpinned.
    shutil.rmtree(TOOLCHAIN_18_DIR / "node_modules", ignore_errors=True)
    _npm(
        [
            "install",
            "--no-save",
            "--no-package-lock",
            str(tarball),
            f"assemblyscript@{AS_TEST_1_8.assemblyscript}",
            "@assemblyscript/wasi-shim@0.1.0",
        ],
        f"npm install of {tarball}",
    )


def _install_from_registry(missing_tarball: Path) -> None:
    shutil.rmtree(TOOLCHAIN_18_DIR / "node_modules", ignore_errors=True)
    try:
        _npm(
            [
                "install",
                "--no-save",
                "--no-package-lock",
                f"as-test@{AS_TEST_1_8.as_test}",
                f"assemblyscript@{AS_TEST_1_8.assemblyscript}",
                "@assemblyscript/wasi-shim@0.1.0",
            ],
            "npm install of as-test 1.8.0 from the registry",
        )
    except ToolchainUnavailable as exc:
        raise ToolchainUnavailable(
            f"as-test 1.8.0 is neither on the registry nor at {missing_tarball}: {exc}; fix: put "
            f"the as-test 1.8.0 tarball there or point {TARBALL_VARIABLE} at it"
        ) from None


def _npm(args: list[str], what: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise ToolchainUnavailable("npm is not on PATH; fix: install Node.js 20 with npm")
    proc = subprocess.run(
        [npm, *args, "--no-audit", "--no-fund"],
        cwd=TOOLCHAIN_18_DIR,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if proc.returncode != 0:
        tail = " | ".join((proc.stdout + proc.stderr).strip().splitlines()[-3:])
        raise ToolchainUnavailable(f"{what} failed (exit {proc.returncode}): {tail}")
