"""The ``AS_TEST_*`` variables as-test sets for a spec's runtime.

They are listed in docs/design/host-contract.md §5.2.
"""

from __future__ import annotations

import re
from pathlib import Path

_RAW_HELPER = re.compile(r"export (async )?function instantiate")
_ESM_HELPER_URL = re.compile(r"new URL\([^)]*\.wasm[^)]*import\.meta\.url")


def runtime_variables(target: str, wasm_path: str, project_root: Path) -> dict[str, str]:
    """``wasm_path`` is given as the runtime should see it; the helper is looked up beside it."""
    variables = {"AS_TEST_RUNTIME_TARGET": target, "AS_TEST_WASM_PATH": wasm_path}
    if target in ("bindings", "web"):
        helper = wasm_path.removesuffix(".wasm") + ".js"
        kind = bindings_kind(project_root / helper)
        variables["AS_TEST_BINDINGS_KIND"] = kind
        if kind != "none":
            variables["AS_TEST_HELPER_PATH"] = helper
    return variables


def bindings_kind(helper: Path) -> str:
    """as-test's ``detectBindingsKind``: what sort of JS helper asc wrote beside the wasm."""
    try:
        source = helper.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return "none"
    if _RAW_HELPER.search(source):
        return "raw"
    if "export const" in source and _ESM_HELPER_URL.search(source):
        return "esm"
    return "unknown"
