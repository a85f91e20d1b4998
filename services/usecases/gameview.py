"""The projector's cached view of one game (`services.usecases.project`): its working fold at
the stored projection's seq, or its hold, and the running count behind its byte estimate.
Source: docs/decisions/0004-projector-catch-up-subscription.md.

The estimate (`view_bytes`) is `sizedcache.game_bytes` of the folded events plus
`sizedcache.TEXT_FACTOR` times the bytes of their text, as `sizedcache.state_bytes`, but the
text is counted once per event as it is folded, from its JSON line where that bounds it: a
line that is ASCII with no `\\u` escape decodes into strings whose characters are 1 byte each
and fewer than the line's bytes, so `len(line)` bounds them (the strings' headers are in
`EVENT_BYTES`, measured on ordinary events). Any other line (a non-ASCII character, or an
escape that may widen a whole string to 4 bytes a character) is walked as `state_bytes` walks
it (`sizedcache.text_bytes`). Of the ledger, each new entry's note is counted (its other
strings are the event's or the ruleset's constants, shared). No walk of every string of every
event: docs/profiles/hot-path-profiles.md (the walk was 16% of the catch-up).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from contracts.events import parse_event_json
from domain.fold import Folder
from services.runtime.sizedcache import (
    GAME_BYTES,
    TEXT_FACTOR,
    game_bytes,
    new_notes,
    text_bytes,
)

_BACKSLASH = ord("\\")


@dataclass(slots=True)
class GameView:
    """The projector's view of one game: its working fold at the projection's seq, or held.

    The folder is changed in place by a batch (`add`); a batch whose write fails or is skipped
    drops the view (the next batch rebuilds it from storage), so a view never runs ahead of
    storage. `text` is the bytes counted of the folded events' text and the notes of the first
    `noted` ledger entries (module docstring).
    """

    folder: Folder[Any]
    held: int | None = None
    text: int = 0
    noted: int = 0

    @property
    def seq(self) -> int:
        return self.folder.seq if self.folder.started else 0

    @classmethod
    def folded(cls, lines: Iterable[bytes], held: int | None = None) -> GameView:
        """A view of the events `lines` (JSON, seq order) folded from nothing.

        Raises: as `add`."""
        view = cls(Folder(), held)
        for data in lines:
            view.add(data)
        return view

    def add(self, data: bytes) -> None:
        """Parse the event `data` (one JSON line) and fold it; its text is counted.

        Raises: pydantic.ValidationError (not an event), RuleViolation (refused: the folder
        and the count unchanged)."""
        event = parse_event_json(data)
        self.folder.add(event)
        # `b"\\u" not in data`, asked only of a line with a backslash: a byte's search (memchr)
        # takes ~20 ns, the two-byte one ~400 ns a line (docs/profiles/fold-event-cost.md)
        plain = data.isascii() and (_BACKSLASH not in data or b"\\u" not in data)
        self.text += len(data) if plain else text_bytes(event)


def view_bytes(view: GameView) -> int:
    """A view's estimated bytes: `game_bytes` of its events plus `TEXT_FACTOR` times its
    counted text (module docstring); O(new ledger entries)."""
    if not view.folder.started:
        return GAME_BYTES
    state = view.folder.state  # O(1); the batch's rendering took it already
    notes, view.noted = new_notes(state, view.noted)
    view.text += notes
    return game_bytes(state.seq) + TEXT_FACTOR * view.text
