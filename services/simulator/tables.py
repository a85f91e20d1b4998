"""Many simulated tables at once: per-table seeded games and a round-robin interleaving.

Each table draws from its own `random.Random(f"{seed}:{table}")`, so a table's log does not
depend on how many other tables run or in which order their events are taken.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterable, Iterator
from importlib import import_module
from typing import Literal

from contracts.envelope import Envelope
from contracts.events import parse_event
from contracts.games import GAMES
from contracts.penumbra import PenumbraOptions
from contracts.trickerion import TrickerionOptions
from services.simulator.joining import JOIN_SHARE, joined_in_progress
from services.simulator.penumbra import PenumbraTable
from services.simulator.trickerion import TrickerionTable

GameKind = Literal["trickerion", "penumbra", "mixed"]
"""The bundled kinds; any registered game with a simulator (`contracts.games`) is one too."""


def simulated_games() -> list[str]:
    """Keys of the registered games that have a simulator, in registration order."""
    return [key for key, game in GAMES.items() if game.simulator]


def game_id_for(kind: str, seed: int, table: int) -> str:
    """The game id of table `table` in a run seeded `seed`: `tr-<seed>-<table>` / `pe-...`
    (another registered game: `<key>-<seed>-<table>`)."""
    prefix = {"trickerion": "tr", "penumbra": "pe"}.get(kind, kind)
    return f"{prefix}-{seed}-{table}"


def simulate_game(
    kind: GameKind | str,
    seed: int,
    table: int = 0,
    *,
    players: int | None = None,
    trickerion_options: TrickerionOptions | None = None,
    penumbra_options: PenumbraOptions | None = None,
) -> Iterator[Envelope]:
    """One table's game, lazily: the envelopes in seq order, ending with `game.ended`.

    `kind="mixed"` picks Trickerion or Penumbra per table (about 3 in 5 Trickerion). About one
    Trickerion table in ten is joined in progress (`services.simulator.joining`).
    """
    rng = random.Random(f"{seed}:{table}")
    if kind == "mixed":
        kind = "trickerion" if rng.random() < 0.6 else "penumbra"
    game_id = game_id_for(kind, seed, table)
    actor = f"table-{table}"
    if kind == "trickerion":
        events = TrickerionTable(rng, game_id, actor, players, trickerion_options).events()
        join_rng = random.Random(f"{seed}:{table}:join")  # its own draws: other logs unchanged
        if join_rng.random() < JOIN_SHARE:
            return iter(joined_in_progress(list(events), join_rng))
        return events
    if kind == "penumbra":
        return PenumbraTable(rng, game_id, actor, players, penumbra_options).events()
    path = GAMES[kind].simulator if kind in GAMES else None
    if path is None:
        raise ValueError(f"no simulator for game {kind!r}; simulated: {simulated_games()}")
    module, _, name = path.partition(":")
    table_cls = getattr(import_module(module), name)
    registered: Iterator[Envelope] = table_cls(rng, game_id, actor, players).events()
    return registered


def interleave(games: Iterable[Iterator[Envelope]]) -> Iterator[Envelope]:
    """Round-robin over the games: one event of each live game per round, as concurrent
    tables would produce them (each game's own order is kept)."""
    live = list(games)
    while live:
        still: list[Iterator[Envelope]] = []
        for game in live:
            event = next(game, None)
            if event is not None:
                yield event
                still.append(game)
        live = still


def simulate_tables(
    kind: GameKind, seed: int, tables: int, first_table: int = 0
) -> Iterator[Envelope]:
    """`tables` concurrent games (tables `first_table`...), interleaved round-robin."""
    return interleave(
        simulate_game(kind, seed, t) for t in range(first_table, first_table + tables)
    )


RENAMED_KEYS = frozenset({"player_id", "by_player", "initiative_order", "voided_event_id"})
"""Payload keys whose values name players (a player id, or a list of them) or events."""


def play_seated_table(
    seed: int, table: int, game_id: str, players: tuple[str, ...] | list[str]
) -> list[Envelope]:
    """A simulated Penumbra game for a table whose game already exists (a tournament table:
    `penumbra.game_started` written at seating with `players` in seat order and the default
    options): the simulated game's events after its start, in game `game_id` (from seq 2),
    the simulated seat k's player renamed `players[k - 1]`, each event id derived from the
    game id and seq (a retry is a duplicate; a void points at the renamed id). Seeded by
    (`seed`, `table`): the same every run."""
    events = list(
        simulate_game(
            "penumbra", seed, table, players=len(players), penumbra_options=PenumbraOptions()
        )
    )
    started = events[0].payload.model_dump(mode="json")
    rename = {p["player_id"]: players[p["seat"] - 1] for p in started["players"]}
    # a void names the event it voids by id: renamed along with the events
    rename |= {
        str(e.event_id): str(uuid.uuid5(uuid.NAMESPACE_URL, f"scoreledger:{game_id}:{e.seq}"))
        for e in events
    }
    out = []
    for event in events[1:]:
        raw = event.model_dump(mode="json")
        raw["payload"] = _renamed(raw["payload"], rename, False)
        raw["game_id"] = game_id
        raw["event_id"] = rename[str(event.event_id)]
        out.append(parse_event(raw))
    return out


def _renamed(value: object, rename: dict[str, str], naming: bool) -> object:
    """`value` with every id under a `RENAMED_KEYS` key renamed by `rename`."""
    if isinstance(value, dict):
        return {k: _renamed(v, rename, k in RENAMED_KEYS) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, rename, naming) for v in value]
    if naming and isinstance(value, str):
        return rename.get(value, value)
    return value
