"""`PlayerNames` on a `MemoryBackend` (tests): the Redis adapter's behaviour on a dict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from services.adapters.memory.store import MemoryBackend


class MemoryPlayerNames:
    """`ports.names.PlayerNames` in memory."""

    def __init__(self, backend: MemoryBackend) -> None:
        self.b = backend

    async def names(self, game_id: str) -> dict[str, str]:
        """See `PlayerNames.names`."""
        return dict(self.b.names.get(game_id, {}))

    async def keep(self, game_id: str, names: Mapping[str, str]) -> None:
        """See `PlayerNames.keep`."""
        if names:
            kept = self.b.names.setdefault(game_id, {})
            for player_id, name in names.items():
                kept.setdefault(player_id, name)

    async def forget(
        self, game_id: str, player_id: str, replacements: Sequence[tuple[str, str]]
    ) -> None:
        """See `PlayerNames.forget`."""
        self.b.names.setdefault(game_id, {})[player_id] = ""
        fields = self.b.projections.get(game_id, {})
        for field, value in fields.items():
            for old, new in replacements:
                if old:
                    value = value.replace(old, new)
            fields[field] = value
