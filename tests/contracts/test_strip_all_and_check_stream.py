"""`strip_all` with `strip_names` strips only a batch's start events, and `check_stream` reads
the stream id without `stream_id()`: both answer as the per-event forms did (the same stored
events, the very objects for events without names, the same names in order, the same
refusal). Source: docs/decisions/0014-names-outside-the-log.md; docs/profiles/decode-profiles.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from contracts.envelope import Envelope, check_stream
from contracts.events import parse_event_json
from contracts.names import strip_all, strip_names, strip_side_names

EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"


def _game(name: str) -> list[Envelope]:
    text = (EXAMPLES / name).read_text()
    return [parse_event_json(line) for line in text.splitlines()[:30] if line.strip()]


def _strip_each(events: list[Any]) -> tuple[list[Any], dict[str, str]]:
    """`strip_all(events, strip_names)` as it was: `strip_names` called on every event."""
    stored, names = [], {}
    for event in events:
        out, carried = strip_names(event)
        stored.append(out)
        names |= carried
    return stored, names


@pytest.mark.parametrize("name", ["trickerion-4p-dark-alley-academy.jsonl", "penumbra-3p.jsonl"])
def test_only_start_events_are_stripped_as_each_one_was(name: str) -> None:
    events = _game(name)
    start = events[0]
    # a start event anywhere in the batch, twice, and a batch without one
    for batch in (events, events[1:], [*events[3:6], start, *events[6:9], start]):
        stored, names = strip_all(iter(batch), strip_names)
        before, names_before = _strip_each(batch)
        assert stored == before
        assert list(names.items()) == list(names_before.items())
        for given, out in zip(batch, stored, strict=True):
            if not given.type.endswith(".game_started"):
                assert out is given
            else:
                assert out != given
                assert all(p.name == p.player_id for p in out.payload.players)  # type: ignore[attr-defined]
    assert strip_all([], strip_names) == ([], {})


def test_any_other_strip_is_called_on_every_event() -> None:
    calls: list[object] = []

    def strip(event: object) -> tuple[object, dict[str, str]]:
        calls.append(event)
        return event, {str(len(calls)): "x"}

    stored, names = strip_all(["a", "b", "c"], strip)
    assert calls == ["a", "b", "c"]
    assert stored == ["a", "b", "c"]
    assert list(names) == ["1", "2", "3"]
    assert strip_side_names("not an event") == ("not an event", {})


def test_check_stream_refuses_another_game_as_before() -> None:
    events = _game("penumbra-3p.jsonl")
    game_id = events[0].game_id
    check_stream(game_id, events)
    check_stream(game_id, [])
    other = events[2].model_copy(update={"game_id": "other-game"})
    with pytest.raises(ValueError, match=r"^game_id: event ") as refused:
        check_stream(game_id, [*events[:2], other])
    assert str(refused.value) == f"game_id: event {other.event_id} is for other-game, not {game_id}"
