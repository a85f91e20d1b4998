"""The pure parts of the `forget` use case (`services.usecases.forget`): the texts that turn a
name into its pseudonym in stored JSON, a game's projection rendered again with the names as
they are now, a start event written with names inline in today's form, and what a forget
changed in each tier, in words. No I/O. Source: docs/decisions/0014-names-outside-the-log.md,
docs/forget.md.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence

from contracts.events import dump_event_json, parse_event_json
from contracts.names import put_names, strip_names
from domain.errors import RuleViolation
from domain.fold import fold
from domain.standings import standings, standings_json
from services.archive.ports.cold import ArchivedProjection
from services.ports.names import Rendered
from services.usecases.readmodels.render import view_json


def replacements(name: str, shown: str) -> list[tuple[str, str]]:
    """`(old, new)` texts that turn the JSON string `name` into `shown` in stored JSON: the
    whole string literal (quotes included, so a short name never changes a key or another
    text), escaped as `json.dumps` does and as raw UTF-8."""
    new = json.dumps(shown)
    olds = dict.fromkeys((json.dumps(name), json.dumps(name, ensure_ascii=False)))
    return [(old, new) for old in olds]


def scrubbed(
    p: ArchivedProjection | None, pairs: list[tuple[str, str]]
) -> ArchivedProjection | None:
    if p is None:
        return None
    standings, view = p.standings_json, p.view_json
    for old, new in pairs:
        standings = standings.replace(old, new)
        view = view.replace(old.encode(), new.encode())
    return dataclasses.replace(p, standings_json=standings, view_json=view)


def rendered(events: Sequence[bytes], names: Mapping[str, str]) -> Rendered | None:
    """The game's projection rendered again from its stored `events` (seq order) with the
    start event's names as `names` give them (`put_names`: a forgotten player's pseudonym):
    the standings and view JSON the projector writes for that fold, so every sentence that
    names a player (the view's `result`, the standings' `tie_break`) is written anew. None:
    no events, or the fold refuses one (a held game: its projection stays the projector's)."""
    if not events:
        return None
    try:
        state = fold(
            parse_event_json(put_names(data, names) if i == 0 else data)
            for i, data in enumerate(events)
        )
    except (RuleViolation, ValueError):
        return None
    view = view_json(standings(state), state.cache)
    return Rendered(state.seq, standings_json(state).decode(), view)


def archived_projection(
    p: ArchivedProjection | None, events: Sequence[bytes], names: Mapping[str, str]
) -> tuple[ArchivedProjection | None, bool]:
    """The archived projection rendered again with `names` when it is of the last event (else,
    or if the fold refuses, as it is: the caller replaces the name's texts, `scrubbed`), and
    whether it was rendered again."""
    if p is None:
        return None, False
    again = rendered(events, names) if p.seq == len(events) else None
    if again is None:
        return p, False
    done = dataclasses.replace(p, standings_json=again.standings_json, view_json=again.view_json)
    return done, True


def restored(first: bytes) -> tuple[bytes, dict[str, str]] | None:
    """A start event stored with names inline (a log written before names left it): the
    same event in today's stored form and the names it held; None when it holds none."""
    event = parse_event_json(first)
    stored, names = strip_names(event)
    if all(name == player_id for player_id, name in names.items()):
        return None
    return dump_event_json(stored).encode(), names


def hot_change(already: bool, restored: bool, stored: bool, again: Rendered | None) -> str:
    """What a forget changed in Redis, in words (`Forgotten.changes`)."""
    if already:
        return "forgotten already, nothing changed"
    said = "the name forgotten (the names HASH)"
    if restored:
        said += ", the start event stored again without names"
    if stored and again is not None:
        return f"{said}; standings and view rendered again at seq {again.seq}"
    return (
        f"{said}; the name's texts replaced in the stored projection, which the projector"
        " renders again from the log with the names as they are now"
    )


def archive_change(
    already: bool, restored: bool, before: ArchivedProjection | None, again: bool
) -> str:
    """What a forget changed in the archive, in words (`Forgotten.changes`)."""
    if already:
        return "forgotten already, nothing changed"
    said = "the copy stored again with the name forgotten"
    if restored:
        said += " and the start event without names"
    if before is None:
        return f"{said} (no projection archived)"
    if again:
        return f"{said}; standings and view rendered again at seq {before.seq}"
    return f"{said}; the name's texts replaced in the archived projection"
