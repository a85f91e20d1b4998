"""The workers' settings: the projector (`ProjectorSettings`) and the webhooks role
(`WebhookSettings`)."""

from __future__ import annotations

from pydantic import Field

from services.platform.settings.common import CommonSettings
from services.platform.settings.fields import game_cache_bytes


class ProjectorSettings(CommonSettings):
    """Projector: consumes the feeds, writes projections and checkpoints atomically."""

    batch: int = Field(
        default=500, ge=1, le=10_000, description="max feed entries per read (XREAD COUNT)"
    )
    changes_maxlen: int = Field(
        default=100_000, ge=100, description="approximate cap of each changes stream"
    )
    projector_cache_bytes: int = game_cache_bytes("the projector's folded-game cache")
    # Several projectors share the shards through leases (services/adapters/redis/ownership.py).
    lease_ttl_ms: int = Field(
        default=10_000,
        ge=300,
        le=600_000,
        description="shard lease time (ms), renewed every third of it: a dead or paused "
        "projector's shards are taken over about this long after its last renewal",
    )
    projector_start_timeout_s: float = Field(
        default=10.0,
        gt=0,
        le=300,
        description="the projector's start-up (Redis, scripts, first leases) must finish "
        "within this many seconds, else it fails (the process exits non-zero)",
    )
    checkpoint_every_ms: int = Field(
        default=20,
        ge=0,
        le=1_000,
        description="after a read whose events the appends had projected already (only the "
        "checkpoint moved), wait this long (ms) before the next read, so one read and one "
        "checkpoint move cover the appends meanwhile; standings and notices are not delayed "
        "(the appends wrote them), the checkpoint trails by up to this much more; 0: read "
        "again at once",
    )
    feed_trim: bool = Field(
        default=True, description="trim the shard feeds once the checkpoint has passed"
    )
    feed_keep_s: float = Field(
        default=600.0,
        ge=0,
        description="applied feed entries kept this long before the checkpoint (feed id time)",
    )
    feed_trim_every_s: float = Field(
        default=5.0, ge=0, description="least time between two trims of one shard feed"
    )


class WebhookSettings(CommonSettings):
    """The webhooks role: outbound Standard Webhooks deliveries (services/webhooks/doors/)."""

    webhook_queue_max: int = Field(
        default=1000,
        ge=1,
        le=100_000,
        description="pending deliveries per endpoint; past it the oldest coalescable "
        "(standings.changed) one is dropped, else the oldest, counted",
    )
    webhook_log_max: int = Field(
        default=200, ge=1, le=10_000, description="delivery log entries kept per endpoint"
    )
    webhook_max_attempts: int = Field(default=8, ge=1, le=50, description="per delivery")
    webhook_backoff_s: float = Field(
        default=1.0, gt=0, le=600, description="first retry wait; doubles, plus jitter"
    )
    webhook_backoff_max_s: float = Field(
        default=300.0, gt=0, le=3600, description="longest wait between two attempts"
    )
    webhook_timeout_s: float = Field(
        default=10.0,
        gt=0,
        le=60,
        description="whole-request deadline of every outbound call (connect, send and the "
        "answer's headers together), `webhooks test` too",
    )
    webhook_allow_private: bool = Field(
        default=False,
        description="let endpoints target loopback, private and link-local addresses (a "
        "receiver on this host or network); off: refused when added (webhook.private_address) "
        "and never contacted, whatever a name resolves to",
    )
    webhook_rotation_window_s: float = Field(
        default=86_400.0,
        ge=0,
        le=30 * 86400,
        description="`webhooks rotate-secret`: how long the old secret keeps signing",
    )
    webhook_poll_s: float = Field(
        default=1.0, gt=0, le=60, description="the role's longest wait for news (notices, queues)"
    )
