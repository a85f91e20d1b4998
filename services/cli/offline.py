"""Offline scoring of a JSONL event log with the pure domain (no Redis): `scoreledger score`.

A log is one event per line in the wire format of `contracts.envelope.Envelope`; blank lines are
skipped. The first bad line stops the fold with its line number and the error's rule and field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from contracts.envelope import Envelope
from contracts.events import parse_event_json
from domain.errors import RuleViolation
from domain.fold import Folder, GameState
from domain.standings import Standings, standings
from services.usecases.readmodels.shapes import StandingsResponse


@dataclass(frozen=True)
class LogLineError(Exception):
    """A line of a JSONL log that cannot be parsed or breaks a rule.

    Attributes:
        line: 1-based line number in the file.
        rule: the rule id (`RuleViolation.rule`) or `contract.invalid` for a malformed event.
        field: the dotted field at fault, or None.
        message: a readable sentence.
    """

    line: int
    rule: str
    field: str | None
    message: str

    def to_dict(self) -> dict[str, Any]:
        """`{"line", "rule", "field", "message"}`: the `score --json` error object."""
        return {"line": self.line, "rule": self.rule, "field": self.field, "message": self.message}

    def __str__(self) -> str:
        where = f" [{self.field}]" if self.field else ""
        return f"line {self.line}: {self.rule}{where}: {self.message}"


def _validation_error(line: int, error: ValidationError, type_tag: str | None) -> LogLineError:
    first = error.errors()[0]
    loc = [str(part) for part in first["loc"]]
    if loc and type_tag is not None and loc[0] == type_tag:
        loc = loc[1:]  # the discriminated union's tag, not a field
    return LogLineError(line, "contract.invalid", ".".join(loc) or None, first["msg"])


def parse_lines(lines: Iterable[str]) -> list[tuple[int, Envelope]]:
    """Parse JSONL text into `(line number, event)` pairs, upcasting old schema versions.

    Raises:
        LogLineError: the first line that is not a valid event.
    """
    events: list[tuple[int, Envelope]] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            events.append((number, parse_event_json(text)))
        except ValidationError as error:
            raise _validation_error(number, error, _type_tag(text)) from error
        except (ValueError, KeyError, TypeError) as error:  # upcasting a malformed old version
            raise LogLineError(number, "contract.upcast", "schema_version", str(error)) from error
    return events


def _type_tag(text: str) -> str | None:
    try:
        raw: Any = json.loads(text)
    except ValueError:
        return None
    return str(raw.get("type")) if isinstance(raw, dict) else None


def fold_lines(events: list[tuple[int, Envelope]]) -> GameState:
    """Fold parsed events in file order with one `domain.fold.Folder` (O(1) per event).

    Raises:
        LogLineError: the line of the first event that breaks a rule, or line 0 for an empty log.
    """
    folder: Folder[Any] = Folder()
    for number, event in events:
        try:
            folder.add(event)
        except RuleViolation as error:
            raise LogLineError(number, error.rule, error.field, error.message) from error
    if not folder.started:
        raise LogLineError(0, "log.empty", None, "the file holds no events")
    return folder.state


def score_file(path: Path, at_seq: int | None = None) -> Standings:
    """The standings of the JSONL log at `path` (final if it ends with `game.ended`), or, with
    `at_seq`, as they stood just after the event of that seq: the replay a referee settles a
    dispute with, as `GET /games/{id}/standings?at_seq=` answers it (later events, voids and
    corrections included, do not count yet). Every line is still parsed.

    Raises:
        LogLineError: a bad line (see `parse_lines`, `fold_lines`); `read.seq_not_found`
            (field `at_seq`, line 0) when the log holds no event of seq `at_seq`.
        OSError: the file cannot be read.
    """
    with path.open(encoding="utf-8-sig") as handle:  # a BOM from Windows editors is not data
        events = parse_lines(handle)
    if at_seq is not None:
        last = max((event.seq for _, event in events), default=0)
        if not 1 <= at_seq <= last:
            message = f"no event of seq {at_seq}: the log runs from seq 1 to {last}"
            raise LogLineError(0, "read.seq_not_found", "at_seq", message)
        events = [(number, event) for number, event in events if event.seq <= at_seq]
    return standings(fold_lines(events))


def standings_summary(view: StandingsResponse) -> dict[str, Any]:
    """The `score --json` shape: `{game_id, game, status, players: [{player_id, name, rank, total,
    provisional_total, categories, resources, card_lines}], winner}`; `categories` maps every
    category key of the game (and `correction`) to points, 0 included; `provisional_total` is the
    total "if the game ended now" (the total once final); `resources` what the player holds
    besides the score (Trickerion: coins, shards; Penumbra: arcana, experience, light, dark);
    `card_lines` one `{card_id, category, points, note}` per Level 3 trick. Units: the game's
    score unit (Fame or VP).

    Built from the query service's view, so `score --json` and the demo's final standings (read
    over HTTP) come from the same function.
    """
    return {
        "game_id": view.game_id,
        "game": view.game,
        "status": view.status,
        "players": [
            {
                "player_id": p.player_id,
                "name": p.name,
                "rank": p.rank,
                "total": p.total,
                "provisional_total": p.provisional.total if p.provisional else p.total,
                "categories": {c.key: c.points for c in p.breakdown},
                "resources": dict(p.resources),
                "card_lines": [c.model_dump() for c in p.card_lines],
            }
            for p in view.players
        ],
        "winner": view.winner,
    }
