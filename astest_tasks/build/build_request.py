"""What one compile asks: a spec, its mode's build settings and where the output goes.

A frozen dataclass of plain data, handed whole to the build action (doit may pickle it to a
worker process) and compared whole by the build prefetcher (build_prefetch.py).
"""

from __future__ import annotations

from dataclasses import field

from astest_tasks.core.frozen import frozen
from astest_tasks.model.results import SpecIdentity


@frozen
class BuildRequest:
    """Everything one compile needs, as plain data (it is passed to a doit action)."""

    project_root: str
    spec: SpecIdentity  # the spec and its mode (the build target is the mode's)
    wasm_path: str  # relative to the project root
    record_path: str
    asconfig: str | None = None
    build_args: tuple[str, ...] = ()
    build_cmd: str = ""
    build_env: dict[str, str] = field(default_factory=dict)
    features: tuple[str, ...] = ()  # as-test 1.3+ "features": try-as, or asc --enable NAME

    @property
    def needs_wasi_shim(self) -> bool:
        return self.spec.target == "wasi"
