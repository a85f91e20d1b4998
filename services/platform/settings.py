"""Configuration (pydantic-settings). One settings object per service, built in the service's
composition root and passed down; nothing else reads the environment.

Environment variables use the `SCORELEDGER_` prefix (e.g. `SCORELEDGER_REDIS_URL`); plain
`REDIS_URL` is honoured too, as the README and the test fixture use it.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, urlparse

from pydantic import AliasChoices, AnyHttpUrl, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

INTEGRATION_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
"""An integration's name (`IngestSettings.inbox_integrations`): it becomes a key suffix
(`sl:inbox:<name>`) and an ACL user name (`integration-<name>`), so no `:`, `*`, space or
upper case (deploy/scripts/redis-acl.sh checks the same)."""

MAX_INTEGRATIONS = 64
"""Most integrations with a stream of their own: each costs ingest one subscriber (a blocking
read) and one reclaimer per replica."""


def integration_names(value: Any) -> tuple[str, ...]:
    """The integration names of `value`: text split at commas, spaces, tabs and newlines (the
    environment's `a,b c`; the separators of deploy/scripts/redis-acl.sh, so a list that one
    refuses, e.g. with a CRLF line's carriage return, the other refuses too), or a sequence of
    names, in their order.

    Raises:
        ValueError: a name that is not `INTEGRATION_NAME`, a name listed twice, or more than
            `MAX_INTEGRATIONS` names (docs/decisions/0019-hostile-input-at-every-door.md (hostile integrations)).
    """
    names = (
        tuple(n for n in re.split(r"[ \t\n,]+", value) if n) if isinstance(value, str) else value
    )
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise ValueError("a list of integration names (comma- or space-separated)")
    if len(names) > MAX_INTEGRATIONS:
        raise ValueError(f"{len(names)} integrations listed, at most {MAX_INTEGRATIONS}")
    for name in names:
        if not INTEGRATION_NAME.fullmatch(name):
            raise ValueError(f"integration name {name[:40]!r} is not [a-z0-9][a-z0-9-]{{0,31}}")
        if names.count(name) > 1:
            raise ValueError(f"integration name {name!r} is listed twice")
    return tuple(names)


REDIS_URL_SCHEMES = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")
"""redis-py's own schemes (`redis.asyncio.connection.parse_url`) and the cluster ones
`services/adapters/redis/connect.py` adds."""

REDIS_URL_OPTIONS = frozenset(
    {
        # parsed by redis-py 8 (`URL_QUERY_ARGUMENT_PARSERS` in redis/asyncio/connection.py)
        "db",
        "socket_timeout",
        "socket_connect_timeout",
        "socket_read_size",
        "socket_keepalive",
        "retry_on_timeout",
        "max_connections",
        "health_check_interval",
        "ssl_check_hostname",
        "ssl_include_verify_flags",
        "ssl_exclude_verify_flags",
        "ssl_min_version",
        "timeout",
        "protocol",
        "legacy_responses",
        # passed through as text to the connection, which takes them as text
        "username",
        "password",
        "client_name",
        "lib_name",
        "lib_version",
        "ssl_cert_reqs",
        "ssl_ca_certs",
        "ssl_ca_path",
        "ssl_certfile",
        "ssl_keyfile",
    }
)
"""The query options a Redis URL may carry. redis-py passes any other `?name=` to the
connection's constructor, which fails with a `TypeError` only when the first command
connects (reported as "cannot reach Redis"); an unknown one is refused here, up front."""


def redis_url_checked(url: str) -> str:
    """`url` if its scheme is a Redis one and its query options are all `REDIS_URL_OPTIONS`.

    Raises:
        ValueError: naming the scheme or the unknown options (never a value: a query may carry
            a password).
    """
    scheme, sep, _ = url.partition("://")
    if not sep or scheme not in REDIS_URL_SCHEMES:
        raise ValueError(f"the scheme must be one of {', '.join(REDIS_URL_SCHEMES)}")
    # the query as redis-py reads it (urlparse: after the first '?' past the host)
    unknown = sorted({name for name, _ in parse_qsl(urlparse(url).query)} - REDIS_URL_OPTIONS)
    if unknown:
        names = ", ".join(repr(name[:40]) for name in unknown[:5])
        raise ValueError(
            f"unknown query option {names}; known: {', '.join(sorted(REDIS_URL_OPTIONS))}"
        )
    return url


def proxy_networks(value: Any) -> tuple[str, ...]:
    """The proxy addresses of `value` (text split at commas and spaces, or a sequence), each
    an IP address or network in CIDR notation, as written.

    Raises:
        ValueError: an entry that is neither (`*` included: trusting every peer would let any
            client choose its own address).
    """
    items = (
        tuple(n for n in re.split(r"[ \t\n,]+", value) if n) if isinstance(value, str) else value
    )
    if not isinstance(items, list | tuple) or not all(isinstance(n, str) for n in items):
        raise ValueError("a list of proxy addresses or networks (comma- or space-separated)")
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"{item[:60]!r} is not an IP address or network") from None
    return tuple(items)


class CommonSettings(BaseSettings):
    """Settings every service shares. `redis_url` is checked up front (`redis_url_checked`)."""

    model_config = SettingsConfigDict(env_prefix="SCORELEDGER_", extra="ignore")

    redis_url: str = Field(  # type: ignore[pydantic-alias]  # two env names, by design
        default="redis://127.0.0.1:6379/0",
        validation_alias=AliasChoices("SCORELEDGER_REDIS_URL", "REDIS_URL"),
    )
    shards: int = Field(
        default=16, ge=1, le=1024, description="feed streams; fixed for a deployment"
    )
    max_body_bytes: int = Field(
        default=1_048_576,
        ge=1024,
        le=64 * 1_048_576,
        description="largest HTTP request body (bytes); larger ones get 413 before parsing",
    )
    log_format: Literal["auto", "json", "console"] = "auto"
    log_level: str = "INFO"
    # Least-privilege Redis (docs/decisions/0019-hostile-input-at-every-door.md): this role's ACL user (deploy/users.acl.template) and
    # its password, from a Secret, never a ConfigMap or the URL. TLS: a `rediss://` URL.
    redis_username: str | None = Field(default=None, max_length=64)
    redis_password: SecretStr | None = None
    redis_tls_ca_file: str | None = Field(default=None, description="CA bundle for rediss://")

    # Redis client (services/adapters/redis/connect.py); a `redis+cluster://` URL also sets cluster.
    redis_cluster: bool = Field(default=False, description="Redis Cluster client (RedisCluster)")
    redis_max_connections: int = Field(
        default=64, ge=1, le=10_000, description="per Redis node; more requests wait, not fail"
    )
    redis_pool_timeout_s: float = Field(
        default=5.0, gt=0, description="longest wait for a free connection, then ConnectionError"
    )
    redis_socket_timeout_s: float = Field(default=5.0, gt=0, description="per command reply")
    redis_connect_timeout_s: float = Field(default=2.0, gt=0)
    redis_retries: int = Field(
        default=5, ge=0, le=50, description="retries (exponential backoff) on connection errors"
    )

    # The archive of sealed games (services/ports/archive.py): unset, nothing is archived.
    archive_url: SecretStr | None = Field(
        default=None,
        description="where sealed games go: `postgresql://user:pass@host/db` or "
        "`file:///absolute/dir`; unset: no archiving (every game stays in Redis)",
    )
    archive_after_s: float = Field(
        default=86_400.0,
        ge=0,
        le=365 * 86400,
        description="a final game with no event for this long is sealed into the archive",
    )
    archive_every_s: float = Field(
        default=30.0, gt=0, le=86400, description="least time between two sealing passes"
    )
    archive_batch: int = Field(
        default=100, ge=1, le=10_000, description="games sealed at most per sealing pass"
    )

    @field_validator("archive_url")
    @classmethod
    def _archive_scheme(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        url = value.get_secret_value()
        if url.startswith(("postgresql://", "postgres://")):
            return value
        if url.startswith("file:///"):
            return value
        raise ValueError("archive_url: expected postgresql://... or file:///absolute/dir")

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str) -> str:
        return redis_url_checked(value)

    def redis_options(self) -> dict[str, Any]:
        """Keyword arguments for `Redis.from_url(redis_url, **...)` and FastStream's
        `RedisBroker(redis_url, **...)`: the ACL user and password (over any in the URL) and
        the TLS CA bundle, each only when set."""
        options: dict[str, Any] = {}
        if self.redis_username is not None:
            options["username"] = self.redis_username
        if self.redis_password is not None:
            options["password"] = self.redis_password.get_secret_value()
        if self.redis_tls_ca_file is not None:
            options["ssl_ca_certs"] = self.redis_tls_ca_file
        return options


class IngestSettings(CommonSettings):
    """Ingest: HTTP appends and the Redis inbox."""

    inbox_batch: int = Field(default=500, ge=1, le=10_000)
    # Inbox consumer group (services/doors/ingest/inbox.py, docs/decisions/0011-faults-are-answered-not-crashed.md): one consumer name per replica.
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
    state_cache_bytes: int = Field(
        default=256 * 1024 * 1024,
        ge=1024 * 1024,
        description="bound of ingest's folded-state cache (bytes, estimated per game: "
        "services/usecases/sizedcache.py); least recently used games are evicted past it",
    )
    inbox_keep_s: float = Field(
        default=86_400.0,
        ge=0,
        description="how long a settled (acked) inbox entry is kept; unsettled ones always are",
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
    # by a timer in the ingest and inbox processes (services/doors/ingest/approvals.py).
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
    inbox_integrations: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(),
        description="integrations with an inbox stream of their own, `sl:inbox:<name>` "
        "(comma- or space-separated names `[a-z0-9][a-z0-9-]{0,31}`, at most 64); the "
        "shared `sl:inbox` is read as well",
    )

    @field_validator("inbox_integrations", mode="before")
    @classmethod
    def _integration_names(cls, value: Any) -> tuple[str, ...]:
        return integration_names(value)

    @model_validator(mode="after")
    def _wait_under_socket_timeout(self) -> IngestSettings:
        # WAIT blocks its connection: a wait past the socket timeout would read as Redis gone
        if self.append_replicas and self.append_wait_ms >= self.redis_socket_timeout_s * 1000:
            raise ValueError(
                f"append_wait_ms ({self.append_wait_ms}) must be under redis_socket_timeout_s "
                f"({self.redis_socket_timeout_s} s)"
            )
        return self


class ProjectorSettings(CommonSettings):
    """Projector: consumes the feeds, writes projections and checkpoints atomically."""

    batch: int = Field(
        default=500, ge=1, le=10_000, description="max feed entries per read (XREAD COUNT)"
    )
    changes_maxlen: int = Field(
        default=100_000, ge=100, description="approximate cap of each changes stream"
    )
    projector_cache_bytes: int = Field(
        default=256 * 1024 * 1024,
        ge=1024 * 1024,
        description="bound of the projector's folded-game cache (bytes, estimated per game: "
        "services/usecases/sizedcache.py); least recently used games are evicted past it",
    )
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


class QuerySettings(CommonSettings):
    """Query service: standings, history, replay, health and metrics over HTTP."""

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    access_log: bool = Field(
        default=False,
        description="uvicorn's access log line per request (off: every request is already "
        "counted in /metrics by route and status, and a line per scoreboard poll costs "
        "about 28 µs of a read's CPU)",
    )
    max_lag_events: int = Field(
        default=10_000, ge=0, description="/readyz fails above this projector lag"
    )
    read_cache_bytes: int = Field(
        default=32 * 1024 * 1024,
        ge=1024 * 1024,
        description="bound of each read-model cache: rendered standings, replay results "
        "(bytes, estimated per entry)",
    )
    # The web scoreboard (served by the query role).
    ingest_url: AnyHttpUrl | None = Field(
        default=None,
        description="ingest's base URL: the query service forwards the page's writes there "
        "(a split deployment); unset, writes go to the same origin",
    )
    stale_after_s: float = Field(
        default=1800.0,
        gt=0,
        le=30 * 86400,
        description="games list: a live game is `stale` after this long without an event",
    )
    public_url: AnyHttpUrl | None = Field(
        default=None,
        description="the address phones reach this service on (`https://scores.example.org`, "
        "a path prefix kept): the TV's and kiosk's QR codes encode it; unset, the origin the "
        "request came to (the TV's own address)",
    )
    # Live streams (services/doors/push/holds.py): what one client may hold at once.
    live_per_client: int = Field(
        default=512,
        ge=1,
        le=100_000,
        description="live SSE streams (games, games list, tournaments) one client holds at "
        "once; past it 429 live.client_limit (a venue's phones behind one address are one "
        "client: see SCORELEDGER_TRUSTED_PROXIES)",
    )
    watch_per_client: int = Field(
        default=20,
        ge=1,
        le=10_000,
        description="tournaments one client follows live at once, of the 200 a query "
        "process follows; past it 429 tournament.watch_client_limit",
    )
    forward_max_bytes: int = Field(default=1_000_000, ge=1024, le=16_000_000)
    forward_timeout_s: float = Field(default=10.0, gt=0, le=120)
    # Replay limits (services/usecases/readmodels/fairqueue.py, snapshots.py): every replay,
    # dispute, ledger, audit page, series, timeline and export not already cached waits its
    # turn in one bounded queue, fairly per client and game.
    replay_queue: int = Field(
        default=64,
        ge=0,
        le=10_000,
        description="replays waiting in all; past it a new one gets 503 replay.queue_full",
    )
    replay_per_client: int = Field(
        default=8,
        ge=1,
        le=1_000,
        description="replays of one client waiting or running; past it 429 replay.client_limit",
    )
    replay_deadline_s: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description="seconds from a replay's arrival to its answer; after it 503 "
        "replay.deadline (a running one runs on and its result is cached for a retry)",
    )
    replay_snapshot_every: int = Field(
        default=200,
        ge=1,
        le=100_000,
        description="a replay worker keeps the state after every N-th event of a game it "
        "folded: a replay at any seq folds at most N events",
    )
    replay_snapshot_bytes: int = Field(
        default=256 * 1024 * 1024,
        ge=1024 * 1024,
        description="bound of each replay worker's snapshots (bytes, estimated per game: "
        "services/usecases/sizedcache.py); least recently used games are evicted past it",
    )
    trusted_proxies: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(),
        description="addresses or networks (CIDR) of the reverse proxies in front of this "
        "service: only a request from one of them is attributed to the client its "
        "X-Forwarded-For names (replay limits are per client); empty: none is trusted",
    )

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _proxies(cls, value: Any) -> tuple[str, ...]:
        return proxy_networks(value)


class WebhookSettings(CommonSettings):
    """The webhooks role: outbound Standard Webhooks deliveries (services/doors/webhooks/)."""

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


class ServiceSettings(IngestSettings, ProjectorSettings, QuerySettings, WebhookSettings):
    """Every role's settings in one object: what the composition root (`services.bootstrap`)
    reads once per process."""
