"""Errors of the ports: the event log's append refusals, a store that failed a call
(`StoreError`) or cannot answer now (`StoreUnavailable`), a fenced write refused (`LeaseLost`)."""

from __future__ import annotations


class VersionConflict(Exception):
    """An append expected the game at version `expected` but it is at `actual`.

    Nothing of the batch was written. The caller reloads and retries, or reports 409.

    Attributes:
        expected: the version the event at fault says the game is at (its `seq - 1`).
        actual: the version the game holds (the stored log's, before the batch).
        index: the 0-based position in the batch of the event at fault (None: not known).
        follows: the seq the event at fault had to follow, when the batch's own earlier events
            moved it past `actual` (a gap inside the batch), else None.
    Source: docs/decisions/0002-one-atomic-append.md (`WRONGVERSION expected X actual Y`).
    """

    def __init__(
        self,
        expected: int,
        actual: int,
        index: int | None = None,
        follows: int | None = None,
    ) -> None:
        self.expected = expected
        self.actual = actual
        self.index = index
        self.follows = follows
        super().__init__(f"expected version {expected}, actual {actual}")

    def __str__(self) -> str:
        """One sentence: which event, what it said, what the game holds."""
        where = "" if self.index is None else f"event {self.index} of the batch: "
        after = (
            ""
            if self.follows is None or self.follows == self.actual
            else f" (the batch's earlier events reach seq {self.follows})"
        )
        return (
            f"{where}expected version {self.expected}, but the game is at version "
            f"{self.actual}{after}"
        )

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


class HeadMismatch(VersionConflict):
    """An append named the event id its writer expects last in the game (`expected_head`) and
    the stored last event is another one, at the same or another version: the writer's state
    (a cache) is not the stored log's, though the version may match (Redis back from an older
    snapshot, then another writer). Nothing was written; the writer re-plans on the stored log.
    """

    def __init__(self, version: int) -> None:
        super().__init__(version, version)
        self.version = version


class StoreError(Exception):
    """The storage behind a port failed a call (its adapter's own error, translated: a door
    never sees a driver's exception type). `reason` is short and fit for an answer (never a
    secret, never the driver's message); `kind` says what failed, for callers that decide by
    it (`services.cli.startup`):

    * `unreachable`, `timeout`, `loading`, `busy`, `cluster`, `readonly`, `memory`,
      `replicas`, `persistence`, `pool`: transient (`StoreUnavailable`);
    * `credentials`: the store refused the credentials (transient too: they may be rotated);
    * `permission`: an access rule refused a command or key (not transient);
    * `failed`: any other refusal of a call (a bug, a command the store does not know).
    """

    def __init__(
        self, message: str, reason: str = "the store failed", kind: str = "failed"
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.kind = kind


class StoreUnavailable(StoreError, ConnectionError):
    """The store cannot answer now (unreachable, timed out, loading, failing over, out of
    memory, ...): nothing was decided; try again later. HTTP doors answer 503 with
    `Retry-After` naming `reason`; the inbox waits it out. A `ConnectionError` (an `OSError`),
    so callers treating `OSError` as transient keep doing so. Source: docs/decisions/0011-faults-are-answered-not-crashed.md (a fault is
    waited out, not judged)."""

    def __init__(
        self,
        message: str,
        reason: str = "the store is unreachable",
        kind: str = "unreachable",
    ) -> None:
        super().__init__(message, reason, kind)


class LeaseLost(RuntimeError):
    """A fenced write was refused: the caller no longer holds the shard's lease (`why`:
    `lease` expired or taken over, `fence` an older acquisition). Nothing was written; stop
    the shard's reader. Source: docs/decisions/0005-leases-with-fencing.md (leases, fencing)."""

    def __init__(self, shard: int, why: str) -> None:
        super().__init__(f"shard {shard}: lease lost ({why}); the write was refused")
        self.shard = shard
        self.why = why


class ReplicasUnconfirmed(Exception):
    """An append (or a duplicate's answer) was stored on the primary, but fewer than `wanted`
    replicas confirmed it within the wait (`acked` did): it is not acknowledged. A retry with
    the same event ids is answered as a duplicate once the replicas confirm. HTTP answers 503
    `append.replicas_unconfirmed` with Retry-After; the inbox retries the round.
    Source: docs/decisions/0016-durable-acknowledgements.md (durable acknowledgements); Redis `WAIT numreplicas timeout`.
    """

    def __init__(self, wanted: int, acked: int) -> None:
        self.wanted = wanted
        self.acked = acked
        self.write_token: str | None = None
        """Set by the record use case when the unconfirmed write created the game with a
        generated token (by the tournament and league creates: the generated organiser
        token): the 503 hands it back as a 201 would, or the retry could not be authorized."""
        super().__init__(
            f"{acked} of {wanted} replica(s) confirmed the write in time "
            "(rule append.replicas_unconfirmed)"
        )
