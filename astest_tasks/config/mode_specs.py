"""Which spec files a mode runs: the ``input`` globs, less the ``!`` patterns, by the rules of
the installed as-test (``as_test_rules.py``).

From as-test 1.0.14 a mode may carry a whole config, ``input`` included, yet ``ast test`` still
resolves its files from the *base* config's ``input`` and hands each one to every mode by path
(``resolveSelectedFiles`` in ``cli/index.ts``), so a mode's own globs select nothing. What a
mode's ``input`` can do is exclude: its ``!`` patterns that the base does not hold take specs out
of that mode (1.5.0+). The base config's ``!`` patterns take specs out everywhere (1.5.2+).
Before 1.0.14 no as-test reads a mode's ``input``; we honour it, with the warning
``mode_layers.py`` gives. The matching rules are in ``input_exclusions.py``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path

from astest_tasks.config.discovery import Spec, discover_specs
from astest_tasks.config.input_exclusions import (
    exclusions_of,
    includes_of,
    minimatch_excludes,
    mode_only_exclusions,
)
from astest_tasks.config.project_config import ModeSettings, ProjectConfig
from astest_tasks.core.frozen import frozen


@frozen
class Exclusion:
    """A spec the base ``input`` finds that one mode's own ``!`` pattern leaves out."""

    spec: Spec
    pattern: str


@frozen
class ModeSpecs:
    specs: list[Spec]
    excluded: tuple[Exclusion, ...] = ()

    @property
    def found_none(self) -> bool:
        """Nothing matched at all (as opposed to: everything was excluded in this mode)."""
        return not self.specs and not self.excluded


def specs_of_mode(
    root: Path, config: ProjectConfig, mode: ModeSettings, base_exclusions: bool = True
) -> ModeSpecs:
    """``base_exclusions=False`` when the user picked specs by name: as-test lets an explicit
    pick run a spec the base ``input`` excludes (a mode's own ``!`` patterns still hold)."""
    rules = config.rules
    patterns = config.base.input_patterns if rules.modes_are_full_configs else mode.input_patterns
    if rules.input_exclusions and not base_exclusions:
        found = discover_specs(root, includes_of(patterns))
    elif rules.input_exclusions:
        found = discover_specs(root, includes_of(patterns), ignore=exclusions_of(patterns))
    else:
        found = discover_specs(root, patterns)  # a "!" glob of its own matches nothing
    own: tuple[str, ...] = ()
    if rules.modes_are_full_configs and rules.mode_input_exclusions:
        own = mode_only_exclusions(config.base.input_patterns, mode.input_patterns)
    if not own:
        return ModeSpecs(found)
    kept: list[Spec] = []
    excluded: list[Exclusion] = []
    for spec in found:
        relative = _relative(root, spec.path)
        pattern = next((p for p in own if minimatch_excludes(relative, p)), None)
        if pattern is None:
            kept.append(spec)
        else:
            excluded.append(Exclusion(spec, pattern))
    return ModeSpecs(kept, tuple(excluded))


def exclusion_note(found: Mapping[str, ModeSpecs]) -> str:
    """One line per mode that leaves specs out, for above the summary."""
    lines = []
    for mode, specs in found.items():
        if specs.excluded:
            names = ", ".join(exclusion.spec.spec_id for exclusion in specs.excluded)
            patterns = ", ".join(sorted({f'"{e.pattern}"' for e in specs.excluded}))
            lines.append(f"not run in mode {mode} (its input's {patterns}): {names}")
    return "\n".join(lines)


def _relative(root: Path, path: str) -> str:
    """The spec's path as ``path.relative(cwd, file)`` gives it to minimatch."""
    if not posixpath.isabs(path):
        return path
    return posixpath.relpath(path, root.resolve().as_posix())
