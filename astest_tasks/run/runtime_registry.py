"""Every runtime a mode can get, and the one that claims a mode's command.

Each runtime says itself which commands it runs (``Runtime.claim``) and what ``astest doctor``
checks of it (``Runtime.doctor_checks``); choosing a mode's runtime and the doctor both go
through ``RUNTIMES`` and never ask which class a runtime is. The claims do not overlap: exactly
one runtime claims each request, so the order below decides nothing.
``tests/run/test_runtime_registry.py`` fails on a runtime class of run/ missing here, on one
without a claim or doctor checks of its own, and on two claims that overlap.
"""

from __future__ import annotations

from astest_tasks.run.default_runtime import DefaultRuntime
from astest_tasks.run.external_runtime import ExternalRuntime
from astest_tasks.run.inprocess_runtime import InProcessRuntime
from astest_tasks.run.runtime import Runtime
from astest_tasks.run.runtime_request import RuntimeRequest
from astest_tasks.run.web_runtime import BrowserRuntime

RUNTIMES: tuple[type[Runtime], ...] = (
    DefaultRuntime,
    InProcessRuntime,
    ExternalRuntime,
    BrowserRuntime,
)


def claimed_runtime(request: RuntimeRequest) -> Runtime:
    """The runtime that claims ``request``: one always does (a command no other runtime runs is
    an external one, no command is a target's default), and never two."""
    claims = [claim for runtime in RUNTIMES if (claim := runtime.claim(request)) is not None]
    if len(claims) != 1:
        named = ", ".join(type(claim).__name__ for claim in claims) or "none"
        raise AssertionError(f"{len(claims)} runtimes claim {request}: {named}")
    return claims[0]
