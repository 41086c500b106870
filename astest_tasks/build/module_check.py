"""Whether a compiled module is whole, before a build records it or the remote cache's is taken.

asc can exit 0 and leave an empty or cut-off module (a write that found the disk full); a build
that recorded it as ``ok`` would be "up to date" with it from then on, and a shared cache would
hand it to every machine. So every module a build records, from whichever route (a spawned asc,
a compile server, a compile ahead, the remote cache), passes here first.

What is checked is cheap (1 to 2 ms for a spec's 60 kB module on a busy machine, where asc
takes a few hundred) and enough for a cut: the wasm magic and version, then wasmtime's
validation, which reads every section to its end.
The engine has every proposal asc can emit turned on, so a module is never refused for a
feature its runtime (a browser, say) may have and wasmtime's defaults lack.
"""

from __future__ import annotations

_HEADER = b"\x00asm\x01\x00\x00\x00"  # the magic "\0asm" and version 1
_FEATURES = (
    "wasm_bulk_memory",
    "wasm_exceptions",
    "wasm_function_references",
    "wasm_gc",
    "wasm_memory64",
    "wasm_multi_memory",
    "wasm_multi_value",
    "wasm_reference_types",
    "wasm_relaxed_simd",
    "wasm_simd",
    "wasm_tail_call",
    "wasm_threads",
)


def module_problem(data: bytes) -> str | None:
    """What is wrong with ``data`` as a WebAssembly module, in a few words; None if it is one."""
    if not data:
        return "it is empty (0 bytes)"
    if not data.startswith(_HEADER):
        return f"it does not start with the WebAssembly magic and version ({len(data)} bytes)"
    # Imported here: the tasks of a doit call with nothing to build never need wasmtime.
    import wasmtime

    config = wasmtime.Config()
    for feature in _FEATURES:
        setattr(config, feature, True)
    try:
        wasmtime.Module.validate(wasmtime.Engine(config), data)
    except wasmtime.WasmtimeError as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid"
        return f"it is not a valid WebAssembly module ({first_line}; {len(data)} bytes)"
    return None
