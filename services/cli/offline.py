"""Offline scoring of a JSONL event log with the pure domain (no Redis): `scoreledger score`.

A log is one event per line in the wire format of `contracts.envelope.Envelope`; blank lines are
skipped. The first bad line stops the fold with its line number and the error's rule and field.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contracts.envelope import Envelope
from domain.errors import RuleViolation
from domain.fold import Folder, GameState
from domain.standings import Standings, standings
from domain.standings_shapes import player_totals
from services.usecases.parse import parse_line
from services.usecases.readmodels.shapes import StandingsResponse
from services.usecases.refusal import Refusal


@dataclass(frozen=True)
class LogLineError(Exception):
    """A line of a JSONL log that cannot be parsed or breaks a rule, or an option the log
    cannot answer.

    Attributes:
        line: 1-based line number in the file, or None when no line is at fault (an empty
            log, a `--at-seq` the log lacks).
        rule: the rule id, the same as the HTTP door's for the same input: `body.json`,
            `body.shape`, `schema.field`, `schema.version` (`services.usecases.parse`), the
            domain's (`RuleViolation.rule`), `log.empty`, `read.seq_not_found`.
        field: the dotted field at fault (`at_seq` for the option), or None.
        message: a readable sentence.
        option: the command-line option at fault (`--at-seq`), or None.
    """

    line: int | None
    rule: str
    field: str | None
    message: str
    option: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """`{"line", "rule", "field", "message"}` (and `"option"` when an option is at fault):
        the `score --json` error object."""
        out: dict[str, Any] = {
            "line": self.line,
            "rule": self.rule,
            "field": self.field,
            "message": self.message,
        }
        return out | ({"option": self.option} if self.option else {})

    def __str__(self) -> str:
        where = f" [{self.field}]" if self.field else ""
        if self.option:
            return f"option {self.option}: {self.rule}: {self.message}"
        if self.line is None:
            return f"{self.rule}{where}: {self.message}"
        return f"line {self.line}: {self.rule}{where}: {self.message}"


def parse_lines(lines: Iterable[str]) -> list[tuple[int, Envelope]]:
    """Parse JSONL text into `(line number, event)` pairs, upcasting old schema versions, with
    the HTTP door's own parser (`services.usecases.parse`), so a refused line names the same
    rule and field as `POST /games/{id}/events` would for that event.

    Raises:
        LogLineError: the first line that is not a valid event.
    """
    events: list[tuple[int, Envelope]] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            events.append((number, parse_line(text, "line")))
        except Refusal as refusal:
            raise LogLineError(number, refusal.rule, refusal.field, refusal.message) from None
    return events


def fold_lines(events: list[tuple[int, Envelope]]) -> GameState:
    """Fold parsed events in file order with one `domain.fold.Folder` (O(1) per event).

    Raises:
        LogLineError: the line of the first event that breaks a rule; no line for an empty log.
    """
    folder: Folder[Any] = Folder()
    for number, event in events:
        try:
            folder.add(event)
        except RuleViolation as error:
            raise LogLineError(number, error.rule, error.field, error.message) from error
    if not folder.started:
        raise LogLineError(None, "log.empty", None, "the file holds no events")
    return folder.state


def score_file(path: Path, at_seq: int | None = None) -> Standings:
    """The standings of the JSONL log at `path` (final if it ends with `game.ended`), or, with
    `at_seq`, as they stood just after the event of that seq: the replay a referee settles a
    dispute with, as `GET /games/{id}/standings?at_seq=` answers it (later events, voids and
    corrections included, do not count yet). Every line is still parsed.

    The cyclic garbage collector is off meanwhile: everything parsed stays alive to the end, and
    the collections its allocations triggered walked it again and again (about 10% of a `score`
    of 200 simulated games). Reference counting still frees what dies at once; cycles made
    meanwhile are collected by the first collection after (as `services.runtime.worker` does
    for a replay job).

    Raises:
        LogLineError: a bad line (see `parse_lines`, `fold_lines`); `read.seq_not_found`
            (field `at_seq`, option `--at-seq`, no line) when the log holds no event of seq
            `at_seq`.
        OSError: the file cannot be read.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        return _score(path, at_seq)
    finally:
        if was_on:
            gc.enable()


def _score(path: Path, at_seq: int | None) -> Standings:
    """`score_file` with the collector as it is."""
    with path.open(encoding="utf-8-sig") as handle:  # a BOM from Windows editors is not data
        events = parse_lines(handle)
    if at_seq is not None:
        last = max((event.seq for _, event in events), default=0)
        if not 1 <= at_seq <= last:
            message = f"no event of seq {at_seq}: the log runs from seq 1 to {last}"
            raise LogLineError(None, "read.seq_not_found", "at_seq", message, "--at-seq")
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
                **player_totals(p),
                "categories": {c.key: c.points for c in p.breakdown},
                "resources": dict(p.resources),
                "card_lines": [c.model_dump() for c in p.card_lines],
            }
            for p in view.players
        ],
        "winner": view.winner,
    }
