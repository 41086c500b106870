"""The flags as-test adds to asc's command line, as the installed as-test version adds them.

as-test 1.0.7 (``getDefaultBuildArgs`` in its ``cli/commands/build-core.ts``):

    asc <spec> <user args> --transform as-test/transform [--config <asconfig>] <target flags>

as-test 1.8.0 (features from 1.3.0, transform first from 1.4.0, ``--bindings raw`` only when the
project declares no ``--bindings`` from 1.5.1):

    asc <spec> --transform as-test/transform <user args> [--transform try-as/transform]
        [--config <asconfig>] [--use AS_TEST_TRY_AS=1] [--enable <feature>...] <target flags>

On the wasi target the wasi-shim's ``--config`` is among the target flags, after the project's:
asc keeps the last one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from astest_tasks.config.as_test_rules import AsTestRules
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.lazy_pattern import LazyPattern

AS_TEST_TRANSFORM = ("--transform", "as-test/transform")
TRY_AS = "try-as"
TRY_AS_TRANSFORM = ("--transform", "try-as/transform")
TRY_AS_FLAG = ("--use", "AS_TEST_TRY_AS=1")
_TRY_AS_SPEC = LazyPattern(r"(?:^|[\\/])try-as(?:[\\/]|$)")


def default_flags(
    rules: AsTestRules,
    target: str,
    asconfig: str | None,
    user_args: Sequence[str],
    features: Sequence[str],
    wasi_shim_config: str | None,
    project_root: Path,
) -> tuple[list[str], list[str]]:
    """The flags as-test puts before and after the user's args, for this target and features."""
    try_as = TRY_AS in features
    after: list[str] = []
    if try_as and not (
        _args_declare_try_as(user_args) or _asconfig_declares(project_root, asconfig, "transform")
    ):
        after += TRY_AS_TRANSFORM
    if asconfig:
        after += ["--config", asconfig]
    if try_as:
        after += TRY_AS_FLAG
    for feature in features:
        if feature != TRY_AS:
            after += ["--enable", feature]
    after += target_flags(
        rules,
        target,
        wasi_shim_config,
        bindings_declared=_args_declare_bindings(user_args)
        or _asconfig_declares(project_root, asconfig, "bindings"),
    )
    if rules.transform_first:
        return list(AS_TEST_TRANSFORM), after
    return [], [*AS_TEST_TRANSFORM, *after]


def target_flags(
    rules: AsTestRules, target: str, wasi_shim_config: str | None, bindings_declared: bool = False
) -> list[str]:
    if target == "wasi":
        assert wasi_shim_config is not None
        return ["--use", "AS_TEST_WASI=1", "--config", wasi_shim_config]
    exports = ["--exportRuntime", "--exportStart", "_start"]
    if not rules.bindings_raw_unless_declared:
        return ["--use", "AS_TEST_BINDINGS=1", "--bindings", "raw", *exports]
    raw = [] if bindings_declared else ["--bindings", "raw"]
    return ["--use", "AS_TEST_BINDINGS=1", *exports, *raw]


def _args_declare_try_as(args: Sequence[str]) -> bool:
    for index, arg in enumerate(args):
        if arg in ("--transform", "-t") and index + 1 < len(args):
            if _is_try_as(args[index + 1]):
                return True
        elif arg.startswith("--transform=") and _is_try_as(arg.removeprefix("--transform=")):
            return True
    return False


def _is_try_as(spec: str) -> bool:
    return spec == TRY_AS or _TRY_AS_SPEC.search(spec) is not None


def _args_declare_bindings(args: Sequence[str]) -> bool:
    return any(arg == "--bindings" or arg.startswith("--bindings=") for arg in args)


def _asconfig_declares(project_root: Path, asconfig: str | None, option: str) -> bool:
    """Whether the asconfig, or one it extends, sets ``options.<option>`` (as as-test 1.8 asks).

    ``transform`` counts only when it names try-as; ``bindings`` whenever it is set.
    """
    seen: set[Path] = set()
    pending = [project_root / asconfig] if asconfig else []
    while pending:
        path = pending.pop().resolve()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        try:
            data = parse_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # asc will report the broken file when it compiles
        if not isinstance(data, dict):
            continue
        options = data.get("options")
        value = options.get(option) if isinstance(options, dict) else None
        if option == "bindings" and value:
            return True
        names_try_as = isinstance(value, list) and any(
            isinstance(t, str) and _is_try_as(t) for t in value
        )
        if option == "transform" and names_try_as:
            return True
        extends = data.get("extends")
        parents = extends if isinstance(extends, list) else [extends]
        pending += [path.parent / p for p in parents if isinstance(p, str)]
    return False
