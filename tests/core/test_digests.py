"""One check of a SHA-256 name, for the keys and blob names that come back from outside."""

from __future__ import annotations

from astest_tasks.core.digests import is_sha256


def test_only_64_lowercase_hex_digits_are_a_digest() -> None:
    assert is_sha256("ab" * 32)
    for other in ("AB" * 32, "ab" * 31, "ab" * 33, "../cas/" + "0" * 57, "\u00e9" * 64, 7, None):
        assert not is_sha256(other), other
