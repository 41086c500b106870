"""What a SHA-256 digest looks like as we write it: 64 lowercase hex digits.

Keys and blob names come back from places we do not control (a cache entry, a CI job's
report.json) and end up in a URL path; one check says whether such text is a digest.
"""

from __future__ import annotations

from typing import TypeGuard

_HEX = frozenset("0123456789abcdef")


def is_sha256(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and len(value) == 64 and _HEX.issuperset(value)
