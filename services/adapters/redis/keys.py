"""Redis key layout. Every key carries a shard hash tag `{sK}` so that one game's keys, its
shard's feed, projections and checkpoint live in one Redis Cluster slot.

Source: docs/decisions/0003-shards-and-hash-tags.md (hash tags by shard, N = 16 feeds).
"""

from __future__ import annotations

from dataclasses import dataclass

from services.ports.shards import shard_of

__all__ = ["PREFIX", "Keys", "shard_of"]

PREFIX = "sl"


@dataclass(frozen=True, slots=True)
class Keys:
    """Key names for a deployment with `shards` feed streams."""

    shards: int = 16

    def tag(self, game_id: str) -> str:
        """The hash tag `{sK}` of a game's shard."""
        return f"{{s{shard_of(game_id, self.shards)}}}"

    def shard_tag(self, shard: int) -> str:
        return f"{{s{shard}}}"

    # --- per game (source of truth) ---
    def game_stream(self, game_id: str) -> str:
        """The game's append-only event stream (never trimmed; its length is the version)."""
        return f"{PREFIX}:game:{self.tag(game_id)}:{game_id}"

    def event_ids(self, game_id: str) -> str:
        """HASH event_id -> seq: idempotency of appends."""
        return f"{PREFIX}:ids:{self.tag(game_id)}:{game_id}"

    def names(self, game_id: str) -> str:
        """HASH player_id -> name ("" once forgotten): names kept outside the log
        (`contracts.names`, `services.ports.names`)."""
        return f"{PREFIX}:names:{self.tag(game_id)}:{game_id}"

    def tier_lock(self, game_id: str) -> str:
        """STRING with a TTL: the owner token of the game's tier lock (sealing and `forget`
        hold it while they change the game's tiers; `services.archive.ports.hot`)."""
        return f"{PREFIX}:tierlock:{self.tag(game_id)}:{game_id}"

    def write_token(self, game_id: str) -> str:
        """STRING: the SHA-256 hex digest of the game's write token (set by the creating append)."""
        return f"{PREFIX}:wtoken:{self.tag(game_id)}:{game_id}"

    # --- per tournament (its own stream kind; the id is the hash tag: one slot) ---
    def tournament_stream(self, tournament_id: str) -> str:
        """A tournament's append-only event stream (entry id `<seq>-1`; length = version)."""
        return f"{PREFIX}:tournament:{{{tournament_id}}}"

    def tournament_ids(self, tournament_id: str) -> str:
        """HASH event_id -> seq: idempotency of a tournament's appends."""
        return f"{PREFIX}:tournament-ids:{{{tournament_id}}}"

    def approval_schedule(self) -> str:
        """ZSET `<due_ms>:<tournament id>` -> ms it is due next: reported table results
        waiting for auto-approval (services/tournaments/adapters/redis_approvals.py)."""
        return f"{PREFIX}:tournament-due"

    def tournament_leagues(self, tournament_id: str) -> str:
        """SET of the ids of the leagues that added the tournament (`LeagueIndex`)."""
        return f"{PREFIX}:tournament-leagues:{{{tournament_id}}}"

    def tournament_token(self, tournament_id: str) -> str:
        """STRING: the organiser token's SHA-256 digest (set by the creating append)."""
        return f"{PREFIX}:tournament-token:{{{tournament_id}}}"

    def side_names(self, stream_key: str) -> str:
        """HASH player_id -> name (or pseudonym once forgotten) of a side stream
        (`stream_key`: the side log's prefix and the stream id), in the stream's slot."""
        return f"{PREFIX}:side-names:{{{stream_key}}}"

    def side_index(self, prefix: str) -> str:
        """ZSET stream id -> ms it was created, of one side-stream kind (`prefix`: ""
        tournaments, "league:" leagues): the list pages' index."""
        return f"{PREFIX}:side-index:{prefix}"

    def side_names_index(self, prefix: str) -> str:
        """SET of the side streams of one kind (`prefix`: "" tournaments, "league:" leagues)
        that keep names: where `forget` looks for the leagues naming a player."""
        return f"{PREFIX}:side-names-index:{prefix}"

    # --- per shard ---
    def feed(self, shard: int) -> str:
        """The shard's feed stream: every appended event of the shard's games, in order."""
        return f"{PREFIX}:feed:{self.shard_tag(shard)}"

    def game_index(self, shard: int) -> str:
        """ZSET game_id -> first append time (ms): the shard's games."""
        return f"{PREFIX}:games:{self.shard_tag(shard)}"

    def checkpoint(self, shard: int) -> str:
        """The projector's checkpoint: the last feed entry id applied for the shard."""
        return f"{PREFIX}:ckpt:{self.shard_tag(shard)}"

    def held(self, shard: int) -> str:
        """HASH game_id -> hold JSON (seq, rule, ...): the shard's held games (`/readyz`)."""
        return f"{PREFIX}:held:{self.shard_tag(shard)}"

    def changes(self, shard: int) -> str:
        """Stream of "standings changed" notifications (game, seq) for live push."""
        return f"{PREFIX}:changes:{self.shard_tag(shard)}"

    # --- projections (per game, in the game's shard slot) ---
    def projection(self, game_id: str) -> str:
        """HASH: seq, status, game, standings (JSON), updated_at."""
        return f"{PREFIX}:proj:{self.tag(game_id)}:{game_id}"

    def ledger(self, game_id: str) -> str:
        """LIST of ledger entries (JSON), appended as events apply."""
        return f"{PREFIX}:ledger:{self.tag(game_id)}:{game_id}"

    # --- outbound webhooks: every key in one slot (`{wh}`), so one script moves them together ---
    def webhooks(self, part: str, endpoint_id: str | None = None) -> str:
        """`sl:wh:{wh}:<part>[:<endpoint>]`: `endpoints` (HASH id -> JSON), `ckpt` (HASH shard ->
        notice id, `since`), `seen` (HASH game -> seq), `scrubs` (HASH game -> how many
        forget scrubs ran: a dispatch commit checks it); per endpoint `q` (LIST of delivery ids),
        `d` (HASH id -> pending delivery JSON), `co` (HASH game -> coalescable id), `log` (LIST,
        newest first), `stats` (HASH `dropped`, `superseded`)."""
        tail = f":{endpoint_id}" if endpoint_id is not None else ""
        return f"{PREFIX}:wh:{{wh}}:{part}{tail}"

    # --- global, not in a game's slot ---
    dead_letter: str = f"{PREFIX}:deadletter"
    inbox: str = f"{PREFIX}:inbox"

    def integration_inbox(self, name: str) -> str:
        """`sl:inbox:<name>`: the inbox stream of one integration (docs/decisions/0019-hostile-input-at-every-door.md (hostile
        integrations): only its own ACL user `integration-<name>` may XADD there, so its
        `XADD ... MAXLEN 0` trims nobody else's entries). A key of its own, so a Redis Cluster
        slot of its own; `name` is checked by `IngestSettings.inbox_integrations`."""
        return f"{self.inbox}:{name}"

    def integration_dead_letters(self, name: str) -> str:
        """`{sl:deadletter}:inbox:<name>`: a copy of each dead letter of integration `name`'s
        inbox entries, which its own ACL user may read (and no other letter); in the dead-letter
        stream's Cluster slot, so one script writes both."""
        return f"{{{self.dead_letter}}}:inbox:{name}"

    @property
    def dead_letter_scrubbed(self) -> str:
        """ZSET `<letter stream>|<id>` -> ms of the letter's first id: the letters a forget
        stored again (`deadletter_scrub`), so retention trims them by their first time; in the
        dead-letter stream's Cluster slot."""
        return f"{{{self.dead_letter}}}:scrubbed"

    def dead_letter_once(self, key: str) -> str:
        """STRING with a TTL: "`key` (e.g. `inbox:<entry id>`) was dead-lettered"; its hash tag
        is the dead-letter stream's name, so both share a Redis Cluster slot."""
        return f"{{{self.dead_letter}}}:once:{key}"
