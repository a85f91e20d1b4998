"""The query role's settings (`QuerySettings`): reads, replays, live push, the web pages."""

from __future__ import annotations

from pydantic import AnyHttpUrl, Field

from services.platform.settings.common import CommonSettings
from services.platform.settings.fields import ProxyNetworks, game_cache_bytes


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
    # Replay limits (services/runtime/fairqueue.py, snapshots.py): every replay,
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
    replay_snapshot_bytes: int = game_cache_bytes("each replay worker's snapshots")
    trusted_proxies: ProxyNetworks = Field(
        default=(),
        description="addresses or networks (CIDR) of the reverse proxies in front of this "
        "service: only a request from one of them is attributed to the client its "
        "X-Forwarded-For names (replay limits are per client); empty: none is trusted",
    )
