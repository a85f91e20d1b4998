"""The ingest role's settings (`IngestSettings`): the HTTP write door and the inbox consumer."""

from __future__ import annotations

from pydantic import Field, SecretStr, model_validator

from services.platform.settings.common import CommonSettings
from services.platform.settings.fields import IntegrationNames, game_cache_bytes


class IngestSettings(CommonSettings):
    """Ingest: HTTP appends and the Redis inbox."""

    inbox_batch: int = Field(default=500, ge=1, le=10_000)
    # Inbox consumer group (services/usecases/inbox/settle.py, docs/decisions/0011-faults-are-answered-not-crashed.md): one consumer name per replica.
    inbox_consumer: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="this replica's consumer name in group `ingest`; unique per live process. "
        "Unset: `ingest-<hostname>-<pid>` (a pod's HOSTNAME; pid 1 in a container, so a "
        "restarted container drains its own pending entries). A stable name (a StatefulSet "
        "pod) drains its PEL at start-up; others' entries are claimed after the idle time",
    )
    inbox_claim_idle_ms: int = Field(
        default=30_000,
        ge=100,
        description="a pending inbox entry idle this long (its consumer died) is claimed "
        "and settled by another replica (XAUTOCLAIM)",
    )
    inbox_retry_cap_s: float = Field(
        default=2.0,
        gt=0,
        le=60,
        description="longest pause between two retries of an inbox delivery while Redis is "
        "away (exponential backoff from 50 ms); retried until Redis answers",
    )
    state_cache_games: int = Field(
        default=10_000, ge=1, description="games whose state ingest keeps folded"
    )
    state_cache_bytes: int = game_cache_bytes("ingest's folded-state cache")
    live_projection: bool = Field(
        default=True,
        description="an append also stores its game's projection, rendered from the state its "
        "check folded, when the stored one is just behind it (one parse and one fold per live "
        "event; the ingest ACL user then writes sl:proj and sl:changes); off: the projector "
        "projects every event",
    )
    inbox_keep_s: float = Field(
        default=86_400.0,
        ge=0,
        description="how long a settled (acked) inbox entry is kept; unsettled ones always are; "
        "one that may name a player (a *.game_started event) is deleted once settled",
    )
    dead_letter_keep_s: float = Field(
        default=30 * 86_400.0,
        ge=60,
        description="how long a dead letter (with its raw input) is kept",
    )
    inbox_max_len: int = Field(
        default=10_000,
        ge=1,
        description="entries per inbox stream (the shared one, each integration's) past which "
        "every settled entry is trimmed at once, whatever its age; unsettled ones always stay",
    )
    retention_every_s: float = Field(
        default=10.0, ge=0, description="least time between two retention trims of the inbox"
    )
    # Tournaments: a reported table result is approved once its `auto_approve_after_s` passed,
    # by a timer in the ingest and inbox processes (services/tournaments/doors/ingest_approvals.py).
    approval_every_s: float = Field(
        default=2.0,
        ge=0,
        le=3600,
        description="seconds between two passes of the tournaments' auto-approval timer "
        "(0: off; due results are then approved only by the next write or approve-due)",
    )
    approval_batch: int = Field(
        default=20, ge=1, le=1000, description="due table results a timer pass takes at most"
    )
    approval_lease_s: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="a due result a pass took but did not settle (its process died, the "
        "append failed) is taken again after this many seconds",
    )
    # Durable acknowledgements (docs/decisions/0016-durable-acknowledgements.md): an append is answered (201, inbox ack) only once
    # this many replicas hold it (Redis `WAIT`); else 503 `append.replicas_unconfirmed`.
    append_replicas: int = Field(
        default=0,
        ge=0,
        le=16,
        description="replicas that must confirm an append before it is acknowledged (WAIT); "
        "0: acknowledged once the primary has it (replication is asynchronous)",
    )
    append_wait_ms: int = Field(
        default=1000,
        ge=1,
        le=60_000,
        description="longest wait for those replicas (ms); keep it under redis_socket_timeout_s",
    )
    creator_key: SecretStr | None = Field(
        default=None,
        description="when set, creating a game needs this integration key (HTTP header "
        "`X-Creator-Key`, inbox field `creator_key`); off by default",
    )
    # Hostile input (docs/decisions/0019-hostile-input-at-every-door.md): (hostile integrations): one inbox stream per integration, only its ACL user may
    # XADD there (services/doors/ingest/inbox_app.py, deploy/users.acl.template). Text in the env.
    inbox_integrations: IntegrationNames = Field(
        default=(),
        description="integrations with an inbox stream of their own, `sl:inbox:<name>` "
        "(comma- or space-separated names `[a-z0-9][a-z0-9-]{0,31}`, at most 64); the "
        "shared `sl:inbox` is read as well",
    )

    @model_validator(mode="after")
    def _wait_under_socket_timeout(self) -> IngestSettings:
        # WAIT blocks its connection: a wait past the socket timeout would read as Redis gone
        if self.append_replicas and self.append_wait_ms >= self.redis_socket_timeout_s * 1000:
            raise ValueError(
                f"append_wait_ms ({self.append_wait_ms}) must be under redis_socket_timeout_s "
                f"({self.redis_socket_timeout_s} s)"
            )
        return self
