"""Runs each spec of the bindings target, inside doit's own process (astest-tasks 0.1.0).

This file is yours: astest-tasks wrote it because it was missing and will never change it.
Delete it to get the current default back on the next `doit`.

Add the host functions your specs declare with `@external("env", "name")` to IMPORTS. They get
and return plain numbers; decorate one with `@with_memory` to receive the spec's memory first
(`memory.string(pointer)` reads an AssemblyScript string). The raw bindings imports (`abort`,
`process.stdout.write`, `performance.now`, ...) are supplied for you.

While this runs, os.environ holds AS_TEST_RUNTIME_TARGET, AS_TEST_WASM_PATH,
AS_TEST_BINDINGS_KIND, AS_TEST_HELPER_PATH and the mode's runOptions.env.
"""

from astest_tasks.runner import instantiate

# For example:
#     from astest_tasks.runner import with_memory
#
#     @with_memory
#     def shout(memory, pointer: int) -> None:
#         print(memory.string(pointer).upper())
#
#     IMPORTS = {"env": {"shout": shout}}
IMPORTS: dict[str, dict[str, object]] = {}

instance = instantiate(IMPORTS)
instance.start()
