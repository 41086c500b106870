"""Tests for astest_tasks.run.module_shelf: modules compiled ahead, handed to their run."""

from __future__ import annotations

import os
import threading

import wasmtime

from astest_tasks.run import module_shelf
from astest_tasks.run.module_shelf import SHELF_SIZE, ModuleShelf


def module_bytes(answer: int) -> bytes:
    wat = f'(module (func (export "answer") (result i32) i32.const {answer}))'
    return bytes(wasmtime.wat2wasm(wat))


def offer(shelf: ModuleShelf, engine: wasmtime.Engine, wasm: bytes) -> None:
    """What a compile ahead does: reserve the module's place, then compile it."""
    compile_it = shelf.reserve(engine, wasm)
    if compile_it is not None:
        compile_it()


def answer_of(engine: wasmtime.Engine, module: wasmtime.Module) -> object:
    store = wasmtime.Store(engine)
    instance = wasmtime.Instance(store, module, [])
    answer = instance.exports(store)["answer"]
    assert isinstance(answer, wasmtime.Func)
    return answer(store)


def test_a_run_takes_the_module_compiled_for_its_bytes_once() -> None:
    engine = wasmtime.Engine()
    shelf = ModuleShelf()
    offer(shelf, engine, module_bytes(42))
    module = shelf.take(engine, module_bytes(42))
    assert module is not None
    assert answer_of(engine, module) == 42
    assert shelf.take(engine, module_bytes(42)) is None  # taken: the next run compiles itself
    assert len(shelf) == 0


def test_a_reserved_place_is_taken_once_its_module_is_compiled() -> None:
    engine = wasmtime.Engine()
    shelf = ModuleShelf()
    compile_it = shelf.reserve(engine, module_bytes(5))
    assert compile_it is not None and len(shelf) == 1
    assert shelf.reserve(engine, module_bytes(5)) is None  # already there
    compile_it()
    module = shelf.take(engine, module_bytes(5))
    assert module is not None and answer_of(engine, module) == 5


def test_other_bytes_or_another_engine_find_nothing() -> None:
    engine = wasmtime.Engine()
    shelf = ModuleShelf()
    offer(shelf, engine, module_bytes(1))
    assert shelf.take(engine, module_bytes(2)) is None
    assert shelf.take(wasmtime.Engine(), module_bytes(1)) is None  # and it is gone
    assert len(shelf) == 0


def test_bytes_wasmtime_refuses_give_nothing_so_the_run_reports_the_error_itself() -> None:
    engine = wasmtime.Engine()
    shelf = ModuleShelf()
    offer(shelf, engine, b"\0asm\1\0\0\0\xff")
    assert shelf.take(engine, b"\0asm\1\0\0\0\xff") is None


def test_only_the_newest_modules_wait() -> None:
    engine = wasmtime.Engine()
    shelf = ModuleShelf()
    for answer in range(SHELF_SIZE + 2):
        offer(shelf, engine, module_bytes(answer))
    assert len(shelf) == SHELF_SIZE
    assert shelf.take(engine, module_bytes(0)) is None
    assert shelf.take(engine, module_bytes(SHELF_SIZE + 1)) is not None


class _WatchedEvent(threading.Event):
    """An event that tells when somebody starts waiting for it."""

    def __init__(self) -> None:
        super().__init__()
        self.waited = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.waited.set()
        return super().wait(timeout)


def test_a_run_waits_for_the_module_still_being_compiled() -> None:
    engine = wasmtime.Engine()
    shelf = ModuleShelf()
    wasm = module_bytes(7)
    # The entry as reserve() registers it before compiling; the compile finishes only once the
    # run is already waiting for it.
    entry = module_shelf._Entry(engine, ready=_WatchedEvent())
    shelf._entries[module_shelf._key(wasm)] = entry
    taken: list[wasmtime.Module | None] = []
    runner = threading.Thread(target=lambda: taken.append(shelf.take(engine, wasm)))
    runner.start()
    assert isinstance(entry.ready, _WatchedEvent) and entry.ready.waited.wait(timeout=30)
    entry.module = wasmtime.Module(engine, wasm)
    entry.ready.set()
    runner.join(timeout=30)
    assert len(taken) == 1 and taken[0] is entry.module


def test_a_forked_process_starts_with_an_empty_shelf() -> None:
    engine = wasmtime.Engine()
    offer(module_shelf.SHELF, engine, module_bytes(3))
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        os.write(write_end, str(len(module_shelf.SHELF)).encode())
        os._exit(0)
    os.close(write_end)
    seen = os.read(read_end, 16)
    os.close(read_end)
    os.waitpid(child, 0)
    assert seen == b"0"
    assert module_shelf.SHELF.take(engine, module_bytes(3)) is not None
