"""Errors of the event store."""

from __future__ import annotations


class VersionConflict(Exception):
    """An append expected the game at version `expected` but it is at `actual`.

    Nothing of the batch was written. The caller reloads and retries, or reports 409.
    Source: research/tech.md §3.3 (`WRONGVERSION expected X actual Y`).
    """

    def __init__(self, expected: int, actual: int) -> None:
        self.expected = expected
        self.actual = actual
        super().__init__(f"expected version {expected}, actual {actual}")

    def to_dict(self) -> dict[str, int | str]:
        """`{"error": "version_conflict", "expected", "actual"}` for API bodies."""
        return {"error": "version_conflict", "expected": self.expected, "actual": self.actual}
