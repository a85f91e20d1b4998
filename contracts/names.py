"""Player names kept outside the log: taken out of `*.game_started` at append, put back on read.

A name is personal data; the log is immutable. So the stored `*.game_started` event holds each
player's `player_id` in place of `name` (a valid `NonEmptyText`, and nothing personal beyond the
id the rest of the log already carries), and the names live beside the log, per game, as
`player_id -> name`. Reading puts them back (`put_names`, an upcaster of the stored form: the
event read is the event posted, byte for byte). Forgetting a player replaces their entry by
`FORGOTTEN`; every read then shows the pseudonym `player-<seat>` instead, also for a log written
before names left it (its inline name is replaced on read, and `forget` stores that start
event again without the names).
Tournament and league events that name players (and a tournament's judges) are stored the same
way (`strip_side_names`, `put_side_names`).
Source: docs/decisions/0014-names-outside-the-log.md (GDPR: personal data outside the immutable
log, or crypto-shredding; Verraes, "Eventsourcing patterns: forgettable payloads").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from contracts.envelope import Envelope
from contracts.events import dump_event_json, parse_event_json

FORGOTTEN = ""
"""The names store's value of a forgotten player (a real name is never empty)."""

_MARK = b'game_started"'


def pseudonym(seat: int) -> str:
    """What a forgotten player is called: `player-<seat>` (seat 1-based, as in the event)."""
    return f"player-{seat}"


def may_be_start(data: bytes) -> bool:
    """A cheap test on stored JSON: False when it cannot be a `*.game_started` event."""
    return _MARK in data


_STARTED = ".game_started"


def is_game_started(event_type: str) -> bool:
    """Whether a wire type is a game's start event (`<game>.game_started`)."""
    return event_type.endswith(_STARTED)


def strip_names(event: Envelope) -> tuple[Envelope, dict[str, str]]:
    """The event to store and the names it carried (`player_id -> name`).

    A `*.game_started` event comes back with each player's `name` set to their `player_id`
    (the stored placeholder); any other event comes back as is, with no names.
    """
    if not event.type.endswith(_STARTED):  # `is_game_started`, without a call per event
        return event, {}
    payload: Any = event.payload
    names = {p.player_id: p.name for p in payload.players}
    players = tuple(p.model_copy(update={"name": p.player_id}) for p in payload.players)
    stored = event.model_copy(update={"payload": payload.model_copy(update={"players": players})})
    return stored, names


def shown_name(player_id: str, seat: int, inline: str, names: Mapping[str, str]) -> str:
    """The name a reader sees: the kept name, the pseudonym once forgotten, else the inline
    one (a log written before names left it, or a game with no kept names)."""
    kept = names.get(player_id)
    if kept is None:
        return inline
    return pseudonym(seat) if kept == FORGOTTEN else kept


def put_names(data: bytes, names: Mapping[str, str]) -> bytes:
    """A stored event's JSON with its players' names as a reader sees them (`shown_name`).

    Any event other than a `*.game_started`, or one whose names need no change, comes back as
    the very bytes given (so an old log reads byte for byte as stored); a changed one is
    dumped as `dump_event_json` dumps every stored event, so a new game's start event reads
    back byte for byte as posted (and recorded).

    Raises: pydantic.ValidationError (a start event that does not parse).
    """
    if not names or _MARK not in data:
        return data
    head = json.loads(data)
    if not isinstance(head, dict) or not is_game_started(str(head.get("type"))):
        return data
    event = parse_event_json(data)
    payload: Any = event.payload
    players = tuple(
        p.model_copy(update={"name": shown_name(p.player_id, p.seat, p.name, names)})
        for p in payload.players
    )
    if all(a.name == b.name for a, b in zip(players, payload.players, strict=True)):
        return data
    shown = event.model_copy(update={"payload": payload.model_copy(update={"players": players})})
    return dump_event_json(shown).encode()


def start_players(data: bytes) -> dict[str, int]:
    """`player_id -> seat` of a stored `*.game_started` event's JSON (empty: not one)."""
    head = json.loads(data)
    if not isinstance(head, dict) or not is_game_started(str(head.get("type"))):
        return {}
    players = (head.get("payload") or {}).get("players") or []
    return {str(p["player_id"]): int(p["seat"]) for p in players}


# --- Side logs (tournaments, leagues) ---------------------------------------------------
# A tournament's `player_registered` / `player_joined_late` and a league addition's `players`
# name players too, and a tournament's `judge_appointed` names a judge. Their stored form holds
# the person's id in place of the name, as a start event does. The names are kept per stream,
# each under its event's id and the person's key (`<event_id>/<key>`: a player's id, or
# `~<judge_id>` for a judge, so a judge and a player of the same id stay apart), so every event
# reads back the names it was appended with (a league's later addition may name a player
# anew) and a refused append's names never decide what a stored event reads. A forgotten
# person has `!<key>` -> their pseudonym (`player-<n>`, n their 1-based order in the stream;
# `judge-<n>`, n the judge's 1-based order of appointment), which every event then reads.

M = TypeVar("M")
"""A side-log envelope (`TournamentEnvelope`, `LeagueEnvelope`: pydantic models)."""


def side_name_field(event_id: object, player_id: str) -> str:
    """The kept-names field of the name an event (`event_id`) gave `player_id`."""
    return f"{event_id}/{player_id}"


def side_forgotten_field(player_id: str) -> str:
    """The kept-names field of a forgotten player's pseudonym."""
    return f"!{player_id}"


def side_field_player(field: str) -> str:
    """The person's key of a kept-names field (either kind): a player's id, or a judge's
    `judge_key`."""
    return field[1:] if field.startswith("!") else field.split("/", 1)[-1]


JUDGE_MARK = "~"
"""What a judge's key starts with (never in an id: `contracts.envelope.PlayerId`)."""


def judge_key(judge_id: str) -> str:
    """The kept-names key of a judge (`~<judge_id>`), apart from a player of the same id."""
    return JUDGE_MARK + judge_id


def judge_pseudonym(order: int) -> str:
    """What a forgotten judge is called: `judge-<order>` (1-based order of appointment)."""
    return f"judge-{order}"


def side_key_id(key: str) -> str:
    """The id a person's key stands for (a judge's key without its mark): what the stored
    form holds in place of the name."""
    return key.removeprefix(JUDGE_MARK)


_ID_FIELDS = ("player_id", "judge_id")


def _is_named(model: object) -> bool:
    if not isinstance(model, BaseModel):
        return False
    fields = type(model).model_fields
    return "name" in fields and any(f in fields for f in _ID_FIELDS)


def _key(model: Any) -> str:
    """A named model's person key: its `player_id`, else its judge's `judge_key`."""
    player_id = getattr(model, "player_id", None)
    return str(player_id) if player_id is not None else judge_key(str(model.judge_id))


def _renamed(event: M, name_of: Mapping[str, str] | None, found: dict[str, str]) -> M:
    """`event` with each named player's `name` replaced: by their id (`name_of` None: the
    stored form) or by what `name_of` keeps for them (module comment); the names met go into
    `found`, by kept-names field."""
    event_id = getattr(event, "event_id", "")

    def one(model: Any) -> Any:
        key = _key(model)
        found[side_name_field(event_id, key)] = model.name
        if name_of is None:
            new = side_key_id(key)
        else:
            new = name_of.get(side_forgotten_field(key)) or name_of.get(
                side_name_field(event_id, key), model.name
            )
        return model if new == model.name else model.model_copy(update={"name": new})

    payload: Any = getattr(event, "payload", None)
    if not isinstance(event, BaseModel) or payload is None:
        return event
    changed = _renamed_payload(payload, one)
    return event if changed is payload else event.model_copy(update={"payload": changed})


def _renamed_payload(payload: Any, one: Callable[[Any], Any]) -> Any:
    """`payload` with `one` applied to itself when it names a player and to each of its
    `players` when they all do; the same object when nothing changes. Named: a model with
    a `name` and a `player_id` or (a judge) a `judge_id`."""
    if _is_named(payload):
        payload = one(payload)
    players = getattr(payload, "players", None)
    if isinstance(players, tuple) and players and all(_is_named(p) for p in players):
        new_players = tuple(one(p) for p in players)
        if any(a is not b for a, b in zip(new_players, players, strict=True)):
            payload = payload.model_copy(update={"players": new_players})
    return payload


def without_names(payload: M) -> M:
    """A side-log payload (tournament, league) with each named person's `name` set to their
    id (`player_id`, a judge's `judge_id`), as stored: what two requests are compared by. The
    names are kept outside the stream and a forgotten person's reads back as a pseudonym, so a
    request sent again after a forget is still the same request
    (docs/decisions/0014-names-outside-the-log.md)."""

    def one(model: Any) -> Any:
        pid = side_key_id(_key(model))
        return model if model.name == pid else model.model_copy(update={"name": pid})

    renamed: M = _renamed_payload(payload, one)
    return renamed


def strip_side_names(event: M) -> tuple[M, dict[str, str]]:
    """A side-log event (tournament, league) to store, and the names it carried by
    kept-names field (`<event_id>/<key> -> name`, module comment): each named person's `name`
    set to their id. An event naming no one comes back as is, with no names."""
    found: dict[str, str] = {}
    return _renamed(event, None, found), found


T = TypeVar("T")
"""An event of any stream (a game's `Envelope` or a side log's)."""


def strip_all(
    events: Iterable[T], strip: Callable[[T], tuple[T, dict[str, str]]]
) -> tuple[list[T], dict[str, str]]:
    """Each of `events` to store, stripped by `strip` (`strip_names`, `strip_side_names`), and
    every name they carried, in order.

    With `strip_names` only the start events are stripped: a game's other events carry no
    names, and one test of each event's type costs less than a call per event (the write path
    strips every batch; docs/profiles/decode-profiles.md)."""
    stored: list[T] = list(events)
    names: dict[str, str] = {}
    if strip is strip_names:
        envelopes: list[Any] = stored  # `strip_names` strips game events
        at = [i for i, e in enumerate(envelopes) if e.type.endswith(_STARTED)]
    else:
        at = list(range(len(stored)))
    for i in at:
        stored[i], carried = strip(stored[i])
        names |= carried
    return stored, names


def put_side_names(event: M, kept: Mapping[str, str]) -> M:
    """A stored side-log event with its players' names as kept (`kept`: a stream's kept
    names, module comment): a forgotten player's pseudonym, else the name this event was
    appended with, else the stored one (an event written with names inline). The same object
    when nothing changes."""
    if not kept:
        return event
    return _renamed(event, kept, {})
