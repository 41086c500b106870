"""What a spec may take: the options of the run's limits, declared here (core/option_declarations.py
says how) and read with the config's modes into each run's limits (plan/run_settings.py), which
take the record whole as ``TaskOptions.limits``. Each keeps its text (``10,web=30``) until the
modes are known."""

from __future__ import annotations

from astest_tasks.core.frozen import frozen
from astest_tasks.core.option_declarations import OptionDoc, option
from astest_tasks.run.limits import MEMORY_LIMIT, OUTPUT_LIMIT, TIMEOUT


@frozen
class LimitOptions:
    """The wall clock, memory and output a spec may use before it is stopped and failed."""

    timeout: str = option(
        f"{TIMEOUT.default:g}",
        "wall-clock seconds a spec may run before it is stopped and failed; `mode=S` entries "
        "set one mode's, e.g. `--timeout=10,web=30` [default: %(default)s]",
        env_var=TIMEOUT.env_var,
        doc=OptionDoc(
            flag="`--timeout S`",
            env="`ASTEST_TIMEOUT`",
            default="`300`",
            meaning="wall-clock seconds a spec may run before it is stopped and failed",
        ),
    )
    memory_limit: str = option(
        f"{MEMORY_LIMIT.default:g}",
        "MiB of memory a spec's wasm may grow to (wasi and bindings); `mode=MIB` entries set "
        "one mode's [default: %(default)s]",
        env_var=MEMORY_LIMIT.env_var,
        doc=OptionDoc(
            flag="`--memory-limit MIB`",
            env="`ASTEST_MEMORY_LIMIT`",
            default="`1024`",
            meaning="memory a spec's wasm may grow to, in wasmtime (wasi and bindings)",
        ),
    )
    output_limit: str = option(
        f"{OUTPUT_LIMIT.default:g}",
        "MiB a spec may write to stdout, frames included, before it is stopped and failed; "
        "`mode=MIB` entries set one mode's [default: %(default)s]",
        env_var=OUTPUT_LIMIT.env_var,
        doc=OptionDoc(
            flag="`--output-limit MIB`",
            env="`ASTEST_OUTPUT_LIMIT`",
            default="`64`",
            meaning="what a spec may write to stdout, frames included, before it is stopped",
        ),
    )
