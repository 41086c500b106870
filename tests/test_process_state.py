"""The state a process keeps between calls, module by module: every piece is named here with
its reason and its kind, and a new one fails the suite until it is.

Scheduling state lives in one object, the process's ``Scheduler`` (schedule/scheduler.py),
reached through one door; a scheduling module that keeps state of its own fails here. State is
a module-level name that a function rebinds (``global``) or changes in place (``NAME[...] =
...``, ``NAME.add(...)``, ``NAME.setdefault(...)`` and the like), or a module-level object
whose methods keep state (``STATEFUL_OBJECTS``, and any object made at import in schedule/).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "astest_tasks"
MUTATING_METHODS = frozenset(
    {
        "add",
        "append",
        "clear",
        "discard",
        "extend",
        "pop",
        "popitem",
        "remove",
        "setdefault",
        "update",
        "insert",
    }
)

# module (relative to the package), name -> why the process keeps it. Scheduling state (the
# compile servers, the builds compiled ahead, the runs handed over, the runner makers) lives in
# the one Scheduler behind this door; what is left below it is named by kind.
SCHEDULER_DOOR = {
    ("schedule/scheduler.py", "_current"): "the process's scheduler, made again in a forked child",
    ("schedule/scheduler.py", "_door"): "guards making it across threads (new after a fork)",
    ("schedule/scheduler.py", "_hooks_installed"): "the exit and fork hooks, registered once",
}
# What the run stage keeps warm for the next spec of this process. Runner scripts (the user's
# files) reach it through the public runner API, below the schedule stage, so it cannot be
# handed down from the scheduler.
RUN_CACHES = {
    ("run/module_shelf.py", "SHELF"): "compiled wasmtime modules kept for the next run",
    ("run/wasm_host.py", "_ENGINES"): "one wasmtime engine per compiler; its modules need it",
    ("run/web_runtime.py", "_server"): "the harness server web specs load from, one per process",
    ("run/web_runtime.py", "_server_pid"): "the process that started it (a fork must not reuse)",
    ("run/browser_session.py", "_sessions"): "open browsers, reused by the next web spec",
    ("run/browser_session.py", "_failed_launches"): "a browser that would not start is not retried",
    ("run/browser_session.py", "_sessions_pid"): "the process that opened them (fork safety)",
    ("run/browser_session.py", "_closers_registered"): "the exit hook, registered once",
    ("run/runner_script.py", "_CODE_CACHE"): "compiled runner scripts, per process",
}
# What a signal handler or exit hook must find whatever else is live: process-wide by nature.
PROCESS_GUARDS = {
    ("run/external_runtime.py", "_LIVE"): "external runtimes still running, ended on a signal",
    ("core/atomic.py", "_WRITING"): "files being written, removed if a signal ends the process",
    ("core/process_env.py", "_SAVED"): "the environment to restore after a runner changed it",
    ("core/project_lock.py", "_held"): "the project lock's descriptor, held until exit",
    ("core/project_lock.py", "_refused"): "the lock refused last, which watch mode waits for",
    ("core/project_lock.py", "_fork_hook"): "forked children close the lock, registered once",
    ("core/parent_bond.py", "_bound"): "the fork hooks binding children to us, registered once",
    ("core/parent_bond.py", "_bond"): "the pipe our forked children watch for our end",
    ("core/parent_bond.py", "_watched"): "the pipe this forked child watches for its parent's end",
}
# Answers worked out once per process, the same for every caller.
MEMOS = {
    ("plan/state_file.py", "_READABLE"): "state files already checked in this process",
    ("config/toolchain.py", "_warned"): "each warning printed once per process",
    ("config/toolchain.py", "_VERSIONS"): "packages' versions, kept while their files are",
    ("core/records.py", "_PLANS"): "how each record class is decoded, worked out once",
    ("core/records.py", "_WRITES"): "how each record class is encoded, worked out once",
    ("core/frozen.py", "_FIRST_NAMES"): "the names dataclasses reads off each annotation text",
    ("core/type_hints.py", "_COMPILED"): "each annotation text compiled once",
}
KNOWN_STATE: dict[tuple[str, str], str] = {
    **SCHEDULER_DOOR,
    **RUN_CACHES,
    **PROCESS_GUARDS,
    **MEMOS,
}
# Module-level objects whose methods keep state (not seen by the mutation scan).
STATEFUL_OBJECTS = {
    ("run/module_shelf.py", "SHELF"),
    ("run/wasm_host.py", "_ENGINES"),
}


def module_state(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    state: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            state.update(node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and node.func.attr in MUTATING_METHODS:
                state.add(owner.id)
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store | ast.Del)
            and isinstance(node.value, ast.Name)
        ):
            state.add(node.value.id)
    return state & top_level


def package_state(package: Path) -> set[tuple[str, str]]:
    return {
        (str(path.relative_to(package)), name)
        for path in sorted(package.rglob("*.py"))
        for name in module_state(path)
    }


def test_every_piece_of_process_state_is_known_with_its_reason() -> None:
    found = package_state(PACKAGE) | STATEFUL_OBJECTS
    unknown = sorted(found - set(KNOWN_STATE))
    assert not unknown, f"new module-level state: name it in KNOWN_STATE with a reason: {unknown}"
    gone = sorted(set(KNOWN_STATE) - found)
    assert not gone, f"no longer state: drop from KNOWN_STATE: {gone}"


def test_the_scan_sees_state_kept_in_a_module(tmp_path: Path) -> None:
    (tmp_path / "cache.py").write_text(
        "_SEEN: set[str] = set()\nLIMIT = {'a': 1}\n_count = 0\n\n\n"
        "def see(name: str) -> None:\n    _SEEN.add(name)\n\n\n"
        "def bump() -> None:\n    global _count\n    _count += 1\n\n\n"
        "def read() -> int:\n    return LIMIT['a']\n"
    )
    assert package_state(tmp_path) == {("cache.py", "_SEEN"), ("cache.py", "_count")}


# Objects made at import that keep nothing between calls.
STATELESS_OBJECTS = {("schedule/run_helper.py", "_HEADER")}  # a struct.Struct: a frame format


def module_objects(path: Path) -> set[str]:
    """Names bound at import to an object made by a call (``_PREFETCHER = BuildPrefetcher()``):
    state the mutation scan cannot see, since only its methods change it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Call)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }


def test_the_schedule_stage_keeps_its_state_in_the_scheduler_alone() -> None:
    stage = PACKAGE / "schedule"
    kept = {
        (str(path.relative_to(PACKAGE)), name)
        for path in sorted(stage.glob("*.py"))
        for name in module_state(path) | module_objects(path)
    }
    unexpected = sorted(kept - set(SCHEDULER_DOOR) - STATELESS_OBJECTS)
    assert not unexpected, f"scheduling state belongs in the Scheduler object: {unexpected}"


def test_the_scan_sees_an_object_made_at_import(tmp_path: Path) -> None:
    (tmp_path / "ahead.py").write_text(
        "import threading\n\n\nclass Ahead:\n    pass\n\n\n"
        "_AHEAD = Ahead()\n_lock: threading.Lock = threading.Lock()\nLIMIT = 3\n"
    )
    assert module_objects(tmp_path / "ahead.py") == {"_AHEAD", "_lock"}
