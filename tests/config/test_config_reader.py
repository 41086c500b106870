"""config_reader's file reading: a config or env file reads as text mode with ``utf-8-sig``
reads it, without loading that codec's module (issue 40)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from astest_tasks.config.config_reader import read_text_file

# A byte-order mark (whole, or one of its bytes) anywhere, every kind of line end, ASCII, a
# two-byte character, a byte that is not UTF-8: the parts where the two readings could differ.
_PIECES = [b"\xef\xbb\xbf", b"\xef", b"\xbb", b"\xbf", b"\r\n", b"\r", b"\n", b"{", b"a"]
_PIECES += [b"\xc3\xa9", b"\xff"]
_BYTES = st.one_of(
    st.lists(st.sampled_from(_PIECES), max_size=12).map(b"".join),
    st.binary(max_size=8),
)


def _outcome(read: Callable[[Path], str], path: Path) -> tuple[str, str]:
    """("text", what was read) or ("error", the exception's type and message)."""
    try:
        return "text", read(path)
    except UnicodeDecodeError as error:
        return "error", f"{type(error).__name__}: {error}"


@settings(deadline=None)
@given(_BYTES)
def test_a_file_reads_as_text_mode_with_utf_8_sig_reads_it(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "as-test.config.json"
        path.write_bytes(data)
        expected = _outcome(lambda p: p.read_text(encoding="utf-8-sig"), path)
        assert _outcome(read_text_file, path) == expected
