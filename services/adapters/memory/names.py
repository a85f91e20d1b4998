"""`PlayerNames` on a `MemoryBackend` (tests): the Redis adapter's behaviour on a dict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from contracts.names import side_field_player, side_forgotten_field
from services.adapters.memory.sidelog import MemorySideLog
from services.adapters.memory.store import MemoryBackend
from services.ports.eventlog import FeedEntry
from services.ports.names import Scrub
from services.ports.notices import Notice
from services.ports.shards import shard_of


class MemoryPlayerNames:
    """`ports.names.PlayerNames` in memory."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend

    async def names(self, game_id: str) -> dict[str, str]:
        """See `PlayerNames.names`."""
        return dict(self.b.names.get(game_id, {}))

    async def names_many(self, game_ids: Sequence[str]) -> list[dict[str, str]]:
        """See `PlayerNames.names_many`."""
        return [dict(self.b.names.get(g, {})) for g in game_ids]

    async def keep(self, game_id: str, names: Mapping[str, str]) -> None:
        """See `PlayerNames.keep`."""
        if names:
            kept = self.b.names.setdefault(game_id, {})
            for player_id, name in names.items():
                kept.setdefault(player_id, name)

    async def forget(self, game_id: str, player_id: str, scrub: Scrub) -> bool:
        """See `PlayerNames.forget`."""
        self.b.names.setdefault(game_id, {})[player_id] = ""
        fields = self.b.projections.get(game_id, {})
        fresh: tuple[str, ...] = ()  # rendered: stored as is (another may have the same name)
        rendered = scrub.rendered
        stored = rendered is not None and fields.get("seq") == str(rendered.seq)
        if rendered is not None and stored:
            fields["standings"] = rendered.standings_json
            fields["view"], fields["view_seq"] = rendered.view_json.decode(), str(rendered.seq)
            fresh = ("standings", "view")
        for field, value in fields.items():
            if field in fresh:
                continue
            for old, new in scrub.replacements:
                if old:
                    value = value.replace(old, new)
            fields[field] = value
        if fields and not stored:  # not rendered here: the projector folds it again
            fields["live"] = "0"
        shard = shard_of(game_id, self.b.shards)
        log = self.b.logs.get(game_id)
        if log:
            entry = FeedEntry(self.b.next_id(), game_id, len(log), log[-1])
            self.b.feeds.setdefault(shard, []).append(entry)
        if "seq" in fields:
            notice = Notice(shard, self.b.next_id(), game_id, int(fields["seq"]))
            self.b.notices.setdefault(shard, []).append(notice)
        self.b.notify()
        return stored

    async def rewrite_start(self, game_id: str, data: bytes) -> bool:
        """See `PlayerNames.rewrite_start`."""
        log = self.b.logs.get(game_id)
        if not log or log[0] == data:
            return False
        log[0] = data
        return True


class MemorySideNames:
    """`ports.names.SideNames` of one side-log kind in memory; `log`: the side log whose
    stored events `rewrite` changes (None: a rewrite changes nothing)."""

    def __init__(self, log: MemorySideLog[Any] | None = None) -> None:
        self.kept: dict[str, dict[str, str]] = {}
        self.log = log

    async def names(self, stream_id: str) -> dict[str, str]:
        """See `SideNames.names`."""
        return dict(self.kept.get(stream_id, {}))

    async def keep(self, stream_id: str, names: Mapping[str, str]) -> list[str]:
        """See `SideNames.keep`."""
        stored: list[str] = []
        if names:
            kept = self.kept.setdefault(stream_id, {})
            for field, name in names.items():
                if field in kept or side_forgotten_field(side_field_player(field)) in kept:
                    continue
                kept[field] = name
                stored.append(field)
        return stored

    async def drop(self, stream_id: str, fields: Sequence[str]) -> None:
        """See `SideNames.drop`."""
        kept = self.kept.get(stream_id, {})
        for field in fields:
            kept.pop(field, None)

    async def forget(self, stream_id: str, player_id: str, pseudonym: str) -> bool:
        """See `SideNames.forget`."""
        kept = self.kept.setdefault(stream_id, {})
        fields = [f for f in kept if f.endswith("/" + player_id)]
        fields.append(side_forgotten_field(player_id))
        changed = [f for f in fields if kept.get(f) != pseudonym]
        for field in changed:
            kept[field] = pseudonym
        return bool(changed)

    async def streams(self) -> list[str]:
        """See `SideNames.streams`."""
        return sorted(self.kept)

    async def count(self, stream_id: str) -> int:
        """See `SideNames.count`."""
        return len(self.kept.get(stream_id, {}))

    async def rewrite(self, stream_id: str, data_by_seq: Mapping[int, bytes]) -> int:
        """See `SideNames.rewrite`."""
        stored = [] if self.log is None else self.log.logs.get(stream_id, [])
        changed = 0
        for seq, data in data_by_seq.items():
            if 1 <= seq <= len(stored) and stored[seq - 1] != data:
                stored[seq - 1] = data
                changed += 1
        return changed
