"""`contracts.names`: a start event stored without names reads back byte for byte as posted;
a forgotten player reads as `player-<seat>`, in a new log and in one written with names inline."""

from __future__ import annotations

from contracts.events import dump_event_json, parse_event_json
from contracts.names import FORGOTTEN, put_names, start_players, strip_names
from tests.names.helpers import NAME, PLAYER, holds_name, lines


def test_a_stripped_start_event_reads_back_byte_for_byte_with_its_names() -> None:
    posted = parse_event_json(lines()[0])
    stored, names = strip_names(posted)
    data = dump_event_json(stored).encode()
    assert names == {"mira": "Mira", "oren": NAME, "tess": "Tess"}
    assert not holds_name(data)
    assert b'"player_id":"oren","name":"oren"' in data  # the placeholder is the id
    assert put_names(data, names) == dump_event_json(posted).encode()


def test_a_forgotten_player_reads_as_player_seat_in_a_new_log_and_an_inline_one() -> None:
    posted = parse_event_json(lines()[0])
    inline = dump_event_json(posted).encode()
    stored, names = strip_names(posted)
    new = dump_event_json(stored).encode()
    forgotten = {**names, PLAYER: FORGOTTEN}
    for data in (put_names(new, forgotten), put_names(inline, {PLAYER: FORGOTTEN})):
        players = {p.player_id: p.name for p in parse_event_json(data).payload.players}  # type: ignore[attr-defined]
        assert players == {"mira": "Mira", "oren": "player-2", "tess": "Tess"}
        assert not holds_name(data)


def test_events_and_logs_with_nothing_to_change_come_back_as_the_same_bytes() -> None:
    second = lines()[1]
    inline = lines()[0]
    assert put_names(second, {PLAYER: FORGOTTEN}) is second
    assert put_names(inline, {}) is inline
    assert put_names(inline, {"mira": "Mira"}) is inline  # the kept name is the inline one
    assert start_players(inline) == {"mira": 1, "oren": 2, "tess": 3}
    assert start_players(second) == {}
