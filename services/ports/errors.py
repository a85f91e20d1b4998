"""Errors of the ports (the event log's append)."""

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


class CredentialMismatch(Exception):
    """An append carried a write-token digest that is not the game's (or the game has events
    but no digest). Nothing was written. Checked inside the append, atomically, so a game
    created between a writer's check and its append cannot be written with another token."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        super().__init__(f"the write token does not match game {game_id!r}")
