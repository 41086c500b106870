"""Mode names: what a config may call a mode, and how a name it may not is refused."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from astest_tasks.config import mode_layers
from astest_tasks.config.mode_layers import _KINDS
from astest_tasks.config.project_config import load_config
from astest_tasks.core.errors import ConfigError
from astest_tasks.core.guest_text import inert_field, terminal_text

CONFIG_NAME = "as-test.config.json"
UNPRINTABLE = ("Cc", "Cf", "Cs", "Zl", "Zp")
WASI_MODE = {"buildOptions": {"target": "wasi"}}


def load_modes(root: Path, names: list[str]) -> list[str]:
    config = {"modes": {name: WASI_MODE for name in names}}
    # JSON's escapes carry every name, a lone surrogate too, as a pull request could write it.
    (root / CONFIG_NAME).write_text(json.dumps(config), encoding="utf-8")
    return list(load_config(Path(CONFIG_NAME), root).modes)


@pytest.mark.parametrize(
    "name",
    [
        "x\n::error::injected by mode name\nx",  # a line of its own in every task title
        "w\x1b]0;pwn\x07x",  # OSC: sets the terminal's title
        "a\rb",
        "a\x00b",
        "a\x7fb",
        "a\x9b2Jb",  # C1 CSI
        "a\x85b",  # NEL, a line break to some readers
        "a\u2028b",
        "a\u202eb",  # right-to-left override: shows as another name
        "a\u200bb",  # zero-width space
        "a\ud800b",  # a lone surrogate: no file name on disk
        "a=b",  # doit refuses the task name
        "x##[error]y",  # a runner's older command form, anywhere in a line
    ],
)
def test_a_mode_name_that_would_act_when_printed_is_refused_naming_file_field_and_fix(
    tmp_path: Path, name: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_modes(tmp_path, ["wasi", name])
    error = caught.value
    message = str(error)

    assert error.config_path == CONFIG_NAME
    assert error.field.startswith("$.modes")
    # What is refused is named: the first such character by its code point, or the part.
    refused = next((c for c in name if unicodedata.category(c) in UNPRINTABLE), None)
    if refused is not None:
        assert f"holds U+{ord(refused):04X}, " in error.problem
    else:
        assert 'holds "="' in error.problem or 'holds "[" after "##"' in error.problem
    assert error.fix.startswith("rename the mode")
    # The line doit prints as it is: nothing in it a terminal or runner would act on.
    assert message == inert_field(message) == terminal_text(message, False, github_actions=True)
    assert not any(unicodedata.category(c) in UNPRINTABLE for c in message)


def test_a_refused_name_is_shown_as_written_but_for_what_is_refused(tmp_path: Path) -> None:
    name = "模式\u200c测试"  # with a zero-width non-joiner, which Persian writes between words
    with pytest.raises(ConfigError) as caught:
        load_modes(tmp_path, [name])
    assert caught.value.problem == (
        'mode name "模式\\u200c测试" holds U+200C, an invisible format character (ZERO WIDTH '
        "NON-JOINER), as its character 3, which task names and reports would carry to terminals "
        "and CI logs"
    )


@pytest.mark.parametrize(
    "name",
    [
        "node:wasi",
        "firefox:headless",
        "wasm_64-bit.v2",
        "my mode",
        "a::b",
        "::error::x",  # never the start of a printed line: task names start with the basename
        "#1 [fast]",
        "50%",
        "café",
        "模式",
        "🙂",
        "a\u00a0b",  # a no-break space shows as a space
    ],
)
def test_every_printable_mode_name_is_kept(tmp_path: Path, name: str) -> None:
    assert load_modes(tmp_path, [name]) == [name]


@pytest.mark.parametrize("code", range(128))
def test_an_ascii_character_is_refused_as_unicodedata_would_say(code: int) -> None:
    """The ASCII shortcut (no unicodedata) answers as the whole check would: every ASCII
    character that is not printable is a control without a name, and no other is refused."""
    character = chr(code)
    category = unicodedata.category(character)
    expected = (category, unicodedata.name(character, "")) if category in _KINDS else None
    assert mode_layers._refused_kind(character) == expected


@given(st.characters(min_codepoint=128))
def test_any_other_character_is_refused_by_its_unicode_category(character: str) -> None:
    category = unicodedata.category(character)
    expected = (category, unicodedata.name(character, "")) if category in _KINDS else None
    assert mode_layers._refused_kind(character) == expected
