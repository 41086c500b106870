"""The state a process keeps between calls, module by module: every piece is named here with
its reason, and a new one fails the suite until it is.

Issue 31 asks for this state to live in one scheduler object; until then this list is its
inventory. State is a module-level name that a function rebinds (``global``) or changes in
place (``NAME[...] = ...``, ``NAME.add(...)``, ``NAME.setdefault(...)`` and the like), or a
module-level object whose methods keep state (the singletons listed with ``kind="object"``).
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

# module (relative to the package), name -> why the process keeps it
KNOWN_STATE: dict[tuple[str, str], str] = {
    ("build/build_prefetch.py", "_PREFETCHER"): "builds compiled ahead of their task, per process",
    ("build/compile_pool.py", "_pool"): "the persistent compile servers, one pool per process",
    ("build/compile_pool.py", "_pool_lock"): "guards the pool's creation across threads",
    ("build/compile_pool.py", "_hooks_installed"): "the pool's exit and fork hooks, set once",
    ("tasks/run_ahead.py", "_RUN_AHEAD"): "runs handed to the helper process, per doit session",
    ("run/module_shelf.py", "SHELF"): "compiled wasmtime modules kept for the next run",
    ("run/web_runtime.py", "_server"): "the harness server web specs load from, one per process",
    ("run/web_runtime.py", "_server_pid"): "the process that started it (a fork must not reuse)",
    ("run/browser_session.py", "_sessions"): "open browsers, reused by the next web spec",
    ("run/browser_session.py", "_failed_launches"): "a browser that would not start is not retried",
    ("run/browser_session.py", "_sessions_pid"): "the process that opened them (fork safety)",
    ("run/browser_session.py", "_closers_registered"): "the exit hook, registered once",
    ("run/external_runtime.py", "_LIVE"): "external runtimes still running, ended on a signal",
    ("run/inprocess_runtime.py", "_CODE_CACHE"): "compiled runner scripts, per process",
    ("tasks/project_lock.py", "_held"): "the project lock's descriptor, held until exit",
    ("tasks/project_lock.py", "_refused"): "the lock refused last, which watch mode waits for",
    ("tasks/state_file.py", "_READABLE"): "state files already checked in this process",
    ("tasks/spec_tasks.py", "_RUNNER_MAKERS"): "which task creator makes each default runner",
    ("config/toolchain.py", "_warned"): "each warning printed once per process",
    ("core/atomic.py", "_WRITING"): "files being written, removed if a signal ends the process",
    ("core/process_env.py", "_SAVED"): "the environment to restore after a runner changed it",
    ("core/records.py", "_PLANS"): "how each record class is encoded, worked out once",
}
# Module-level objects whose methods keep state (not seen by the mutation scan).
STATEFUL_OBJECTS = {
    ("build/build_prefetch.py", "_PREFETCHER"),
    ("tasks/run_ahead.py", "_RUN_AHEAD"),
    ("run/module_shelf.py", "SHELF"),
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
