"""Runs each spec of the wasi target, inside doit's own process (astest-tasks 0.1.0).

This file is yours: astest-tasks wrote it because it was missing and will never change it.
Delete it to get the current default back on the next `doit`.

Add the host functions your specs declare with `@external("env", "name")` to IMPORTS. They get
and return plain numbers; decorate one with `@with_memory` to receive the spec's memory first
(`memory.string(pointer)` reads an AssemblyScript string). WASI itself is supplied for you.

While this runs, os.environ holds AS_TEST_RUNTIME_TARGET, AS_TEST_WASM_PATH and the mode's
runOptions.env; the spec's own WASI environment holds runOptions.env only.
"""

from astest_tasks.runner import instantiate

# For example:
#     import time
#
#     def now_ms() -> float:
#         return time.time() * 1000.0
#
#     IMPORTS = {"env": {"now_ms": now_ms}}
IMPORTS: dict[str, dict[str, object]] = {}

instance = instantiate(IMPORTS)
instance.start()
