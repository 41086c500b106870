"""What to add to the config for a mode it does not declare: the ``fix:`` of an unknown mode.

A newcomer's first ``--mode bindings`` in a project made by ``astest init`` names a mode the config
does not have (``init`` declares none). The fix shows the JSON to paste. With no ``modes`` yet,
declaring one means a plain run runs the declared modes instead of the base config (as-test's
rule), so the snippet declares the base config's target as a mode too, and nothing stops running.
"""

from __future__ import annotations

import json
from collections.abc import Collection

_TARGETS = ("wasi", "bindings", "web")


def add_mode_fix(name: str, config_file: str, declared: Collection[str], base_target: str) -> str:
    """The ``fix:`` text for the unknown mode ``name``; ``declared`` are the config's modes."""
    available = ", ".join(("default", *declared))
    if declared:
        snippet = json.dumps({name: _mode(name, base_target)})[1:-1]
        where = f'add it under "modes" in {config_file}: {snippet}'
    else:
        modes = {base_target: _mode(base_target, base_target), name: _mode(name, base_target)}
        where = f"declare it in {config_file}: {json.dumps({'modes': modes})[1:-1]}"
    return f"choose one of the available modes ({available}), or {where}"


def _mode(name: str, base_target: str) -> dict[str, dict[str, str]]:
    # "bindings" and as-test 1.8's "node:bindings" name their target; other names get the base's.
    named = name.rpartition(":")[2]
    return {"buildOptions": {"target": named if named in _TARGETS else base_target}}
