"""A probe of the whole package in a fresh interpreter: every module imported, nothing of it
used yet (records not made), then the test's own lines."""

from __future__ import annotations

import subprocess
import sys

IMPORT_EVERY_MODULE = (
    "import importlib, pathlib, sys\n"
    "import astest_tasks\n"
    "package = pathlib.Path(astest_tasks.__file__).parent\n"
    "for path in sorted(package.rglob('*.py')):\n"
    "    parts = path.relative_to(package.parent).with_suffix('').parts\n"
    "    if parts[-1] == '__init__':\n"
    "        parts = parts[:-1]\n"
    "    if parts[-1] != '__main__':\n"
    "        importlib.import_module('.'.join(parts))\n"
    "classes = {value for name, module in list(sys.modules.items())\n"
    "           if name.startswith('astest_tasks') for value in vars(module).values()\n"
    "           if isinstance(value, type)}\n"
)


def probe_package(lines: str) -> str:
    """What ``lines`` print, run after every module is imported (``classes`` holds every class
    the package's modules define); the probe must succeed."""
    ran = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERY_MODULE + lines],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout
