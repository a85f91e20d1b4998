"""Standings derived from a `GameState`: totals, breakdowns, shared ranks, the winner.

Every number is a sum over the ledger (plus, during play, the ruleset's "if the game ended now"
categories, marked provisional); the fold keeps those sums as entries arrive (`GameState.totals`,
`.breakdown`), so standings cost O(players x categories) per state, not O(ledger), and are
computed once per state (`GameState.memo`); `standings_text` renders the wire JSON once, as text.
The game's labels (categories, title, score unit) come from the registry and are built once per
game. Ranks are standard competition ranking (1, 1, 3). Source: docs/decisions/0007-pure-domain-fold.md (standings),
docs/decisions/0001-events-are-immutable-facts.md; docs/decisions/0012-hot-reads-and-off-loop-replays.md (incremental standings).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from types import MappingProxyType
from typing import TypeVar

from pydantic import BaseModel
from pydantic_core import to_json

from contracts.common import Player
from contracts.games import game_info
from domain.details import CardLine, kept_details, player_details
from domain.fold import GameState
from domain.ledger import LedgerEntry
from domain.memo import MISS, Memo
from domain.ranks import settle_places
from domain.ruleset import Ruleset
from domain.standings_shapes import CategoryLabel as CategoryLabel
from domain.standings_shapes import Frozen
from domain.standings_shapes import Label as Label
from domain.standings_shapes import PlayerStanding as PlayerStanding
from domain.standings_shapes import Provisional as Provisional
from domain.standings_shapes import Standings as Standings


def score_entries(state: GameState) -> list[LedgerEntry]:
    """The ledger entries in the game's score unit (Fame or VP)."""
    unit = state.ruleset.score_resource
    return [e for e in state.ledger if e.resource == unit]


def standings(state: GameState) -> Standings:
    """The standings of `state` (pure), computed once per state: O(players x categories) from
    the fold's running sums plus the ruleset's provisional part, not a pass over the ledger."""
    cached = state.memo.get("standings")
    if isinstance(cached, Standings):
        return cached
    result = _standings(state)
    state.memo["standings"] = result
    return result


def standings_json(state: GameState) -> bytes:
    """The wire JSON of `standings(state)` (the `Standings` shape) as bytes: `standings_text`
    encoded, once per state."""
    cached = state.memo.get("standings_json")
    if isinstance(cached, bytes):
        return cached
    data = standings_text(state).encode()
    state.memo["standings_json"] = data
    return data


def standings_text(state: GameState) -> str:
    """The wire JSON of `standings(state)` as text (what the stores keep), rendered once per
    state: `result.model_dump_json()` exactly (a test checks it)."""
    cached = state.memo.get("standings_text")
    if isinstance(cached, str):
        return cached
    text = _render(standings(state), state)
    state.memo["standings_text"] = text
    return text


def _render(result: Standings, state: GameState) -> str:
    """`result.model_dump_json()` decoded, from parts kept while they stand: each player's line
    (the same object while its inputs are unchanged, `_lines`) is serialized once, and the
    game's fields, its labels and the seams between them once per game and status (`_frame`);
    only the seq, the lines and the outcome are rendered per state. The fields are in the
    model's order, so the text is exactly pydantic's (a test checks it)."""
    cache = state.cache
    head = (result.game_id, result.game, result.status, result.score_unit)
    labels = _labels_json(state.ruleset)
    first, middle, last = cache.get(
        ("standings.frame",), (labels,), partial(_frame, head, labels), head
    )
    lines = ",".join([line_text(cache, line) for line in result.players])
    winner, winners, tie_break = result.winner, result.winners, result.tie_break
    if winner is None and not winners and tie_break is None:
        outcome = _NO_OUTCOME
    else:
        data = {"winner": winner, "winners": winners, "tie_break": tie_break}
        outcome = to_json(data).decode()[1:-1]
    return "".join((first, str(result.seq), middle, lines, "],", outcome, last))


_NO_OUTCOME = to_json({"winner": None, "winners": [], "tie_break": None}).decode()[1:-1]


def _frame(head: tuple[str, str, str, str], labels: str) -> tuple[str, str, str]:
    """The constant text around a game's seq, players and outcome, for fields `head` (game id,
    game, status, score unit) and its `labels`: up to the seq, from it to the first line, from
    the outcome to the end."""
    game_id, game, status, unit = head
    first = to_json({"game_id": game_id, "game": game, "status": status}).decode()[:-1]
    middle = to_json({"score_unit": unit}).decode()[1:-1]
    return f'{first},"seq":', f',{middle},"players":[', f",{labels}}}"


_LINE_JSON = PlayerStanding.__pydantic_serializer__


def line_text(cache: Memo, line: PlayerStanding) -> str:
    """The JSON of a player's line as text (`line.model_dump_json()`), kept in the game's memo
    (`GameState.cache`) while the line is the same object: the standings text and the stored
    view (`services.usecases.readmodels.render`) both take it."""
    slot = ("json", line.player_id)
    text = cache.peek(slot, (line,))
    if text is MISS:
        text = _LINE_JSON.to_json(line).decode()
        cache.put(slot, (line,), text)
    return text  # type: ignore[no-any-return]


_LABELS_JSON: dict[int, tuple[Ruleset[object], str]] = {}


def _labels_json(ruleset: Ruleset[object]) -> str:
    """`"categories":[...],"title":{...},"score_unit_label":{...}` of the game, once per ruleset."""
    hit = _LABELS_JSON.get(id(ruleset))
    if hit is not None and hit[0] is ruleset:
        return hit[1]
    labels = _labels(ruleset)
    text = to_json(
        {
            "categories": list(labels.categories),
            "title": labels.title,
            "score_unit_label": labels.unit,
        }
    )[1:-1].decode()
    _LABELS_JSON[id(ruleset)] = (ruleset, text)
    return text


def _standings(state: GameState) -> Standings:
    ruleset = state.ruleset
    totals: dict[str, int] = {p.player_id: state.totals.get(p.player_id, 0) for p in state.players}
    ranks, winners, explanation = settle_places(
        ruleset, state.rules, totals, _winners(state, totals)
    )
    order = {pid: i for i, pid in enumerate(winners)}
    lines = _lines(state, ranks, totals)
    lines.sort(key=lambda s: (s.rank, order.get(s.player_id, len(order)), s.seat))
    return _assembled(state, lines, winners, explanation)


def _assembled(
    state: GameState, lines: list[PlayerStanding], winners: list[str], tie_break: str | None
) -> Standings:
    """`state`'s `Standings` from its players' `lines` in place order, the players in first
    place after the tie-break (`winners`, named once the game is final) and the tie-break's
    explanation; the game's labels from its ruleset."""
    ruleset = state.ruleset
    final = state.status == "final"
    labels = _labels(ruleset)
    return _made(
        Standings,
        {
            "game_id": state.game_id,
            "game": state.game,
            "status": state.status,
            "seq": state.seq,
            "score_unit": str(ruleset.score_resource),
            "players": lines,
            "winner": winners[0] if final and len(winners) == 1 else None,
            "winners": winners if final else [],
            "tie_break": tie_break,
            "categories": list(labels.categories),
            "title": labels.title,
            "score_unit_label": labels.unit,
        },
    )


_NONE: Mapping[str, int] = MappingProxyType({})


def _lines(
    state: GameState, ranks: Mapping[str, int], totals: Mapping[str, int]
) -> list[PlayerStanding]:
    """Every player's line, in seat order. A line is rebuilt only when one of its inputs
    changed (domain.memo, `state.cache`): an event usually touches one player, the others keep
    their line (copied with the new rank when only their place changed). A ruleset offering
    `player_inputs(rules_state, player_id) -> (same, equal)` (what its provisional part and
    details of that player read: objects compared by identity, values by `==`) is not even
    asked for them while those are unchanged, and a changed line is built at once (its inputs
    changed: no second lookup); one offering `player_provisional(rules_state, player_id)` is
    asked for that player's part only, and one offering `player_parts(rules_state,
    player_id) -> (provisional part, details)` for both in one call when a line is rebuilt."""
    ruleset, cache, rules = state.ruleset, state.cache, state.rules
    live = state.status == "in_progress"
    inputs = getattr(ruleset, "player_inputs", None)
    if inputs is not None:
        return _lines_by_inputs(state, ruleset, inputs, ranks, totals, live)
    of_player = getattr(ruleset, "player_provisional", None)
    provisional: list[Mapping[str, Mapping[str, int]]] = []  # the whole map, once a render
    lines = []
    for p in state.players:
        pid = p.player_id
        cats = state.breakdown.get(pid, _NONE)
        rank, total = ranks[pid], totals[pid]
        extra = _extra(ruleset, rules, pid, of_player, provisional) if live else None
        details = player_details(ruleset, rules, pid, cache)
        line = cache.get(
            ("line", pid),
            (p, cats, extra, details),
            partial(_line, p, rank, total, cats, extra, details),
            (rank, total),
        )
        lines.append(line)
    return lines


def _extra(
    ruleset: Ruleset[object],
    rules: object,
    pid: str,
    of_player: Callable[[object, str], Mapping[str, int]] | None,
    provisional: list[Mapping[str, Mapping[str, int]]],
) -> Mapping[str, int]:
    """Player `pid`'s provisional part during play: `of_player(rules, pid)` when the ruleset
    offers it (this player only: the others may be unchanged), else its entry of the ruleset's
    whole `provisional(rules)`, computed once a render and kept in `provisional` (empty until
    then)."""
    if of_player is not None:
        return of_player(rules, pid)
    if not provisional:
        provisional.append(ruleset.provisional(rules))
    return provisional[0].get(pid, _NONE)


def _lines_by_inputs(
    state: GameState,
    ruleset: Ruleset[object],
    inputs: Callable[[object, str], tuple[tuple[object, ...], tuple[object, ...]]],
    ranks: Mapping[str, int],
    totals: Mapping[str, int],
    live: bool,
) -> list[PlayerStanding]:
    """`_lines` of a ruleset offering `player_inputs`: each line kept while those inputs, the
    player, the breakdown, the total and the phase stand (one slot per player)."""
    cache, rules, breakdown = state.cache, state.rules, state.breakdown
    of_player = getattr(ruleset, "player_provisional", None)
    parts = getattr(ruleset, "player_parts", None)  # (provisional, details) in one call
    provisional: list[Mapping[str, Mapping[str, int]]] = []  # the whole map, once a render
    peek, put = cache.peek, cache.put
    lines = []
    for p in state.players:
        pid = p.player_id
        cats = breakdown.get(pid, _NONE)
        rank, total = ranks[pid], totals[pid]
        same, equal = inputs(rules, pid)
        key, same, equal = ("inputs", pid), (p, cats, *same), (total, live, *equal)
        line = peek(key, same, equal)
        if line is not MISS:
            if line.rank != rank:
                line = _reranked(line, rank)
                put(key, same, line, equal)
            lines.append(line)
            continue
        if parts is not None:
            extra, raw = parts(rules, pid)
            details = kept_details(raw, pid, cache)
            line = _line(p, rank, total, cats, extra if live else None, details)
        else:
            extra = _extra(ruleset, rules, pid, of_player, provisional) if live else None
            line = _line(p, rank, total, cats, extra, player_details(ruleset, rules, pid, cache))
        put(key, same, line, equal)
        lines.append(line)
    return lines


def _reranked(line: PlayerStanding, rank: int) -> PlayerStanding:
    """`line` at another place (another player passed it or fell behind): the rest stands."""
    return _made(PlayerStanding, {**line.__dict__, "rank": rank})


M = TypeVar("M", bound=BaseModel)


def _construct(cls: type[M], **values: object) -> M:
    """`_made(cls, values)`, the fields given as keywords."""
    return _made(cls, values)


def _made(cls: type[M], values: dict[str, object]) -> M:
    """`cls.model_construct(**values)` unchecked (validation would dominate the standings'
    cost): `values`, every field of its type, is the model's `__dict__` (not to be kept)."""
    model = _new(cls)
    _setattr(model, "__dict__", values)
    _setattr(model, "__pydantic_fields_set__", set(values))
    _setattr(model, "__pydantic_extra__", None)
    _setattr(model, "__pydantic_private__", None)
    return model


_new, _setattr = object.__new__, object.__setattr__


def _line(
    player: Player,
    rank: int,
    total: int,
    categories: Mapping[str, int],
    provisional: Mapping[str, int] | None,
    details: tuple[dict[str, int], list[CardLine]],
) -> PlayerStanding:
    return _made(
        PlayerStanding,
        {
            "player_id": player.player_id,
            "name": player.name,
            "seat": player.seat,
            "rank": rank,
            "total": total,
            "categories": dict(categories),
            "provisional": None if provisional is None else _provisional(total, provisional),
            "resources": details[0],
            "card_lines": details[1],
        },
    )


class _GameLabels(Frozen):
    categories: tuple[CategoryLabel, ...]
    title: Label
    unit: Label


_LABELS: dict[int, tuple[Ruleset[object], _GameLabels]] = {}


def _labels(ruleset: Ruleset[object]) -> _GameLabels:
    """The game's constant labels, built once per ruleset (id-keyed: a re-registered game with
    a new ruleset object gets new labels)."""
    hit = _LABELS.get(id(ruleset))
    if hit is not None and hit[0] is ruleset:
        return hit[1]
    game = game_info(ruleset.game)
    labels = _GameLabels(
        categories=tuple(
            CategoryLabel(key=c.key, en=c.en, ru=c.ru, endgame=c.endgame)
            for c in ruleset.categories
        ),
        title=Label(en=game.title.en, ru=game.title.ru),
        unit=Label(en=game.score_unit_label.en, ru=game.score_unit_label.ru),
    )
    _LABELS[id(ruleset)] = (ruleset, labels)
    return labels


def competition_ranks(totals: dict[str, int]) -> dict[str, int]:
    """Standard competition ranking: higher total ranks first; equal totals share a place.

    >>> competition_ranks({"a": 5, "b": 7, "c": 5, "d": 1})
    {'a': 2, 'b': 1, 'c': 2, 'd': 4}
    """
    ordered = sorted(totals.values(), reverse=True)
    return {pid: ordered.index(total) + 1 for pid, total in totals.items()}


def _winners(state: GameState, totals: dict[str, int]) -> tuple[list[str], str | None]:
    if not totals:
        return [], None
    best = max(totals.values())
    tied = [p.player_id for p in state.players if totals[p.player_id] == best]
    if len(tied) == 1:
        return tied, None
    winners, decision = state.ruleset.tie_break(state.rules, tied)
    names = [p.name for p in state.players if p.player_id in tied]
    who = ", ".join(names[:-1]) + " and " + names[-1]
    unit_label = game_info(state.game).score_unit_label.en
    return winners, f"{who} tied on {best} {unit_label}; {decision}"


def _provisional(total: int, categories: Mapping[str, int]) -> Provisional:
    """During play: the total plus the end-game categories not yet in the ledger (a game whose
    categories are all scored live, like Penumbra, has none: its running total is the answer)."""
    cats = dict(categories)
    return _made(Provisional, {"categories": cats, "total": total + sum(cats.values())})


def player_ledger(state: GameState, player_id: str) -> list[LedgerEntry]:
    """Every ledger entry of one player, in order (all resources)."""
    return [e for e in state.ledger if e.player_id == player_id]
