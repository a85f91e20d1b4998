"""The one standings renderer: the domain's `Standings` -> every answer that shows them.

The schema is the pydantic models of `shapes.py` (`StandingsResponse`, `PlayerLine`) and the
live frame's `contracts.frames.CompactLine`; the renderer is driven by their fields, so a field added to the domain's
`Standings` / `PlayerStanding` and to the view's model under the same name is rendered
everywhere without touching this module (a field of the view that is neither the domain's
nor derived here fails at import, `_steps`).

* `view_json(result, memo, source)`: the body of `GET /games/{id}/standings` without
  `checkpoint` and `updated_at`, as bytes: `StandingsResponse.model_dump_json(exclude=...)` byte
  for byte (tests check it through play, voids and unlabelled categories). The projector
  stores it beside the standings (`ProjectionOp.view_json`) once per change; the query
  service (FastAPI route and raw ASGI front door alike) and the SSE hub pass those bytes on.
* `with_position(head, checkpoint, updated_at)`: the served GET body (the two position
  fields appended).
* `view(result, source, ...)`: the same answer as a `StandingsResponse` (replay, CLI, demo),
  parsed from `view_json`'s bytes, so it cannot differ from them.
* `compact(body)`: a later frame of `GET /games/{id}/live` (`CompactLine` players: `points`,
  `{category key: points}` of the non-zero categories, instead of the labelled breakdown).

Cost: the fields the domain holds as they are go out through the domain model's own pydantic
serializer, a run of consecutive fields in one call; each player's line is kept in the game's
memo (`GameState.cache`) while the line is the same object (the standings keep a player's
line while its inputs are unchanged, `domain.standings._lines`) under the same labels, and
the breakdown is one piece per category, kept per game and label set with 0 points, so a line
formats only the categories it has points in. Source: docs/decisions/0012-hot-reads-and-off-loop-replays.md (the stored view), docs/integrating/http.md (compact frames), docs/architecture/index.md
(one renderer).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import is_
from typing import Any, Literal, TypeVar

from pydantic import BaseModel
from pydantic_core import to_json

from contracts.frames import CompactLine
from domain.memo import MISS, Memo
from domain.standings import CategoryLabel, PlayerStanding, Standings, line_text
from services.usecases.readmodels.labels import category_labels, outcome_text
from services.usecases.readmodels.shapes import PlayerLine, StandingsResponse

Source = Literal["projection", "replay"]
V = TypeVar("V")
POSITION = frozenset({"checkpoint", "updated_at"})
"""The view's fields that say where the stored value stands, appended when it is served."""


@dataclass(slots=True)
class _Labels:
    """The constant JSON of a game's label set: per category key `{"key":..,"en":..,"ru":..,
    "endgame":..,"points":`, and the breakdown as one piece per category in label order, the
    brackets around them included: each a `%`-template of its points (`points`) and as it reads
    with 0 points (`zeros`), so a line formats only the categories it has points in."""

    keys: tuple[str, ...]
    prefixes: dict[str, bytes]
    index: dict[str, int]
    points: list[bytes]
    zeros: list[bytes]
    subsets: dict[tuple[str, ...], bytes] = field(default_factory=dict)
    """The template of each subset of the keys a provisional part has shown so far."""
    shown: dict[tuple[str, ...], tuple[tuple[str, ...], bytes, bool]] = field(default_factory=dict)
    """Per provisional part's keys (in its order): the labelled ones in label order, their
    template, and whether they are all of its keys in its own order."""

    def provisional(self, keys: tuple[str, ...]) -> tuple[tuple[str, ...], bytes, bool]:
        """`shown`'s entry of `keys`, made on its first use (a player's provisional part has
        the same keys in the same order event after event)."""
        made = self.shown.get(keys)
        if made is None:
            index = self.index
            labelled = tuple(sorted(filter(index.__contains__, keys), key=index.__getitem__))
            made = self.shown[keys] = (labelled, self.template(labelled), labelled == keys)
        return made

    def template(self, keys: tuple[str, ...]) -> bytes:
        """The `%`-template of the `CategoryPoints` of `keys` (a subset, in label order)."""
        made = self.subsets.get(keys)
        if made is None:
            made = self.subsets[keys] = b",".join(
                self.prefixes[k].replace(b"%", b"%%") + b"%d}" for k in keys
            )
        return made

    def breakdown(self, categories: Mapping[str, int]) -> bytes:
        """The JSON list of `CategoryPoints` of every label for a breakdown (a key of it not
        labelled raises KeyError: `view_json` labels every key shown)."""
        if not self.zeros:
            return b"[]"
        pieces = self.zeros.copy()
        index, points = self.index, self.points
        for key, value in categories.items():
            at = index[key]
            pieces[at] = points[at] % value
        return b",".join(pieces)

    @classmethod
    def of(cls, labels: Sequence[CategoryLabel]) -> _Labels:
        prefixes = {
            c.key: to_json({"key": c.key, "en": c.en, "ru": c.ru, "endgame": c.endgame})[:-1]
            + b',"points":'
            for c in labels
        }
        keys = tuple(c.key for c in labels)
        points = [prefixes[k].replace(b"%", b"%%") + b"%d}" for k in keys]
        zeros = [prefixes[k] + b"0}" for k in keys]
        if keys:  # the list's brackets ride on its first and last piece
            points[0], zeros[0] = b"[" + points[0], b"[" + zeros[0]
            points[-1], zeros[-1] = points[-1] + b"]", zeros[-1] + b"]"
        return cls(keys, prefixes, {k: i for i, k in enumerate(keys)}, points, zeros)


# --- the plan: the view's fields, in order, each passed through, computed or spliced -------

Render = Callable[..., bytes]
"""`render(value, context, **spliced)`: the JSON object of one view model (see `_compile`)."""


def _compile(
    view: type[BaseModel], domain: type[BaseModel], computed: dict[str, str], spliced: list[str]
) -> Render:
    """The renderer of `view`'s fields in order (`POSITION` left out), as one generated function
    `render(value, context, **spliced)`: a field the domain model holds under the same name is
    `value.<name>`; a `computed` one is its Python expression (of `value`, `context` and this
    module's names); a `spliced` one is a keyword argument, its JSON already rendered (a
    player's line, kept while it stands). Each run of consecutive non-spliced fields is one
    `to_json` of a dict, as fast as writing it out by hand.

    Raises:
        TypeError: a view field is neither the domain model's nor computed nor spliced (a field
            the schema gained but nothing renders).
    """
    pieces: list[str] = []  # expressions of bytes, in order, joined with nothing between
    run: list[str] = []

    def close() -> None:
        if run:  # `to_json` of a dict: its braces trimmed where it meets the other pieces
            start = "1" if pieces else ""
            if pieces:
                pieces.append("b','")
            pieces.append(f"to_json({{{', '.join(run)}}})[{start}:-1]")
            run.clear()

    for name in view.model_fields:
        if name in POSITION:
            continue
        if name in spliced:
            close()
            comma = b"," if pieces else b"{"
            pieces.append(repr(comma + to_json(name) + b":"))
            pieces.append(name)
        elif name in computed:
            run.append(f"{name!r}: {computed[name]}")
        elif name in domain.model_fields:
            run.append(f"{name!r}: value.{name}")
        else:
            raise TypeError(f"{view.__name__}.{name} is neither {domain.__name__}'s nor rendered")
    if run:
        close()
        pieces[-1] = pieces[-1].replace(":-1]", ":]")  # the last piece keeps its closing brace
    else:
        pieces.append("b'}'")  # the last field was spliced: close the object
    source = (
        f"def render(value, context, {', '.join(spliced)}):\n"
        f"    return b''.join(({', '.join(pieces)},))\n"
    )
    namespace: dict[str, Any] = {"to_json": to_json, "outcome_text": outcome_text}
    exec(compile(source, f"<render {view.__name__}>", "exec"), namespace)
    render: Render = namespace["render"]
    return render


_line = _compile(PlayerLine, PlayerStanding, {}, ["breakdown", "provisional"])
_HEAD = ("player_id", "name", "seat", "rank", "total")
_TAIL = ("resources", "card_lines")
_view = _compile(
    StandingsResponse,
    Standings,
    {"result": "outcome_text(value) or None", "source": "context"},
    ["players", "title", "score_unit_label"],
)


# --- the answers --------------------------------------------------------------------------


def view_json(result: Standings, memo: Memo, source: Source = "projection") -> bytes:
    """The standings view of `result` without `POSITION` (see the module docstring); `memo` is
    the game's (`GameState.cache`; a fresh `Memo()` renders once)."""
    base = memo.get(
        ("readmodels.view_base",), tuple(result.categories), partial(_shared_base, result)
    )
    if all(p.categories.keys() <= base.known for p in result.players):
        keys, labels = base.keys, base.labels  # no key beyond the game's own and `correction`
    else:
        labels = category_labels(result)
        keys = tuple(c.key for c in labels)
    game = memo.get(("readmodels.view_labels",), (), partial(_shared_labels, labels), (keys,))
    lines = []
    for p in result.players:  # a kept line (the same object) keeps its JSON
        slot = ("readmodels.view_line", p.player_id)
        text = memo.peek(slot, (p,), (keys,))
        if text is MISS:
            text = _line_json(p, game, line_text(memo, p))
            memo.put(slot, (p,), text, (keys,))
        lines.append(text)
    title = memo.get(("readmodels.view_title",), (result.title,), partial(to_json, result.title))
    unit = result.score_unit_label
    unit_json = memo.get(("readmodels.view_unit",), (unit,), partial(to_json, unit))
    players = _bracketed(lines) if lines else b"[]"
    return _view(result, source, players=players, title=title, score_unit_label=unit_json)


def _bracketed(lines: list[bytes]) -> bytes:
    """`b"[" + b",".join(lines) + b"]"` of some `lines`, copying them once (a view line is
    about 4 KB)."""
    parts = [b"["]
    for line in lines:
        parts += (line, b",")
    parts[-1] = b"]"
    return b"".join(parts)


@dataclass(frozen=True, slots=True)
class _Base:
    """`category_labels` of a result whose breakdowns hold no other keys than its categories'
    and `correction`: the labels, their keys in order and as a set."""

    labels: list[CategoryLabel]
    keys: tuple[str, ...]
    known: frozenset[str]


_SHARED_MAX = 64
"""Most label sets `_SHARED_BASES` and `_SHARED_LABELS` keep (cleared when full: a game whose
breakdowns hold keys beyond its categories adds a set of its own)."""
_SHARED_BASES: dict[tuple[int, ...], tuple[tuple[CategoryLabel, ...], _Base]] = {}
_SHARED_LABELS: dict[tuple[int, ...], tuple[tuple[CategoryLabel, ...], _Labels]] = {}


def _shared(
    table: dict[tuple[int, ...], tuple[tuple[CategoryLabel, ...], V]],
    labels: Sequence[CategoryLabel],
    make: Callable[[], V],
) -> V:
    """`make()` for these label objects, shared by every game showing the very same ones
    (most games show their ruleset's, built once per ruleset: `domain.standings._labels`):
    a game's first view builds neither its `_Base` nor its `_Labels` again (about 37 µs a
    game of the simulated corpus, where a game has about three writes)."""
    key = tuple(map(id, labels))
    hit = table.get(key)
    if hit is not None and all(map(is_, hit[0], labels)):  # the ids still name these labels
        return hit[1]
    value = make()
    if len(table) >= _SHARED_MAX:
        table.clear()
    table[key] = (tuple(labels), value)
    return value


def _shared_base(result: Standings) -> _Base:
    """`_base(result)`, shared by the games showing the same category label objects."""
    return _shared(_SHARED_BASES, result.categories, partial(_base, result))


def _shared_labels(labels: Sequence[CategoryLabel]) -> _Labels:
    """`_Labels.of(labels)`, shared by the games showing the same label objects."""
    return _shared(_SHARED_LABELS, labels, partial(_Labels.of, labels))


def _base(result: Standings) -> _Base:
    """The `_Base` of `result`'s categories (kept while the same label objects are shown)."""
    labels = category_labels(result.model_copy(update={"players": []}))
    keys = tuple(c.key for c in labels)
    return _Base(labels, keys, frozenset(keys))


def _line_json(player: PlayerStanding, game: _Labels, text: str | None = None) -> bytes:
    """`PlayerLine` JSON of `player`: the breakdown labelled, every category shown (0 where
    none), and the provisional part's categories labelled likewise. `text`: the line's own
    JSON (`domain.standings.line_text`, which the standings text keeps), whose fields before
    `categories` and from `resources` on are the view line's, byte for byte (`_SPLICED`): they
    are cut from it instead of serialized again (docs/profiles/fold-event-cost.md, "The
    standings render, again")."""
    provisional = b"null"
    if player.provisional is not None:
        extra = player.provisional.categories
        shown, template, whole = game.provisional(tuple(extra))
        values = tuple(extra.values()) if whole else tuple(map(extra.__getitem__, shown))
        categories = template % values
        provisional = b'{"categories":[%b],"total":%d}' % (categories, player.provisional.total)
    breakdown = game.breakdown(player.categories)
    if not _SPLICED:
        return _line(player, None, breakdown=breakdown, provisional=provisional)
    if text is None:
        text = player.model_dump_json()
    # a quote inside a JSON string is escaped, so only keys match; any key may be a category's
    # or a resource's, but every value in those maps is a number, not an object
    head = text[: text.index(',"categories":{')].encode()
    tail = text[text.rindex(',"resources":{') :].encode()
    return b"".join((head, b',"breakdown":', breakdown, b',"provisional":', provisional, tail))


_SPLICED = tuple(PlayerStanding.model_fields) == (
    *_HEAD,
    "categories",
    "provisional",
    *_TAIL,
) and tuple(PlayerLine.model_fields) == (*_HEAD, "breakdown", "provisional", *_TAIL)
"""Whether a view line is the domain line's JSON with `categories` and `provisional` replaced
(the fields of both models as `_line_json` cuts them; else it renders every field)."""


def with_position(head: bytes, checkpoint: str | None, updated_at: str | None) -> bytes:
    """The served standings body: `head` (`view_json`'s bytes) with `checkpoint` and
    `updated_at` appended (as `json.dumps` of them wrote them)."""
    return b"".join(
        (
            head[:-1],
            b',"checkpoint": ',
            _json_text(checkpoint),
            b', "updated_at": ',
            _json_text(updated_at),
            b"}",
        )
    )


def _json_text(value: str | None) -> bytes:
    return b"null" if value is None else json.dumps(value).encode()


def view(
    result: Standings,
    source: Source,
    checkpoint: str | None = None,
    updated_at: str | None = None,
) -> StandingsResponse:
    """The standings view of `result` as its model (parsed from `view_json`, so the same)."""
    body = with_position(view_json(result, Memo(), source), checkpoint, updated_at)
    return StandingsResponse.model_validate_json(body)


def compact(body: dict[str, Any]) -> dict[str, Any]:
    """A later live frame's standings: `body` (the full view, parsed) with each player a
    `CompactLine` (`points` and the provisional `{total, points}` of non-zero categories; the
    page keeps the labels from the first, full frame); pure."""
    players = []
    for p in body.get("players", []):
        line: dict[str, Any] = {}
        for name in _COMPACT_FIELDS:
            if name == "points":
                line[name] = _points(p.get("breakdown", []))
            elif name == "provisional":
                part = p.get("provisional")
                line[name] = (
                    {"total": part["total"], "points": _points(part.get("categories", []))}
                    if part
                    else None
                )
            else:
                line[name] = p.get(name)
        players.append(line)
    return {**{k: v for k, v in body.items() if k != "players"}, "players": players}


_COMPACT_FIELDS = tuple(CompactLine.model_fields)


def _points(categories: list[dict[str, Any]]) -> dict[str, int]:
    return {c["key"]: c["points"] for c in categories if c.get("points")}
