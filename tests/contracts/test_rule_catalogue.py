"""The rule catalogue per event type and per route (`services.rules.map`, `rule_routes`) is
the code's: the page and `contracts/rules.json` list exactly what the walk finds, known ids
sit under their types, every route answering a problem is in a family, and a refusal the
folds really raise is listed for the event type that met it."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from typing import Any
from uuid import uuid4

from contracts.envelope import Envelope
from contracts.events import parse_event
from contracts.league import GameAdded, LeagueCreated, parse_league_event
from contracts.tournament import (
    JudgeAppointed,
    JudgeDismissed,
    PlayerDropped,
    ResultLine,
    TableResultApproved,
    TableResultConfirmed,
    TableResultReported,
    parse_tournament_event,
)
from domain.errors import RuleViolation
from domain.fold import GameState, evolve
from domain.league.fold import apply as league_apply
from domain.tournament.fold import admit
from services.rules.ids import ROOT, catalogue
from services.rules.map import OTHER, event_rules
from services.rules.pages import catalogue_page
from services.rules.routes import FAMILIES, family_of, family_rules
from tests.contracts.test_rule_ids import matches, section
from tests.domain.league.test_league import CUP, GAME
from tests.domain.league.test_league import _events as league_events
from tests.domain.tournament.stream import Stream

RULES = json.loads((ROOT / "contracts" / "rules.json").read_text(encoding="utf-8"))
IDS = re.compile(r"`([a-z][a-z0-9_]*(?:\.[a-z0-9_*]+)+)`")


def listed(game: str, type_: str) -> set[str]:
    """The ids the catalogue lists for a game's event type (another game's: the `*` row)."""
    rows = {(e.game, e.type): set(e.rules) for e in event_rules() if e.stream == "game"}
    return rows.get((game, type_)) or rows[(game, OTHER)]


def test_rules_json_lists_the_walk_s_ids_per_event_type_and_route() -> None:
    assert RULES["event_types"] == [
        {"stream": e.stream, "game": e.game, "type": e.type, "rules": list(e.rules)}
        for e in event_rules()
    ]
    assert [f["family"] for f in RULES["routes"]] == [f.name for f in FAMILIES]
    for family, data in zip(FAMILIES, RULES["routes"], strict=True):
        assert [(r["rule"], r["status"]) for r in data["rules"]] == family_rules(family)
        assert data["routes"], family.name
    every = {r for e in event_rules() for r in e.rules} | {
        r for f in FAMILIES for r, _ in family_rules(f)
    }
    assert set(RULES["meanings"]) == every
    for rule, said in RULES["meanings"].items():
        assert said["detail"], rule
        assert said["example"]["rule"] == rule
        assert said["example"]["type"] == f"urn:scoreledger:rule:{rule}"


def test_every_event_type_of_every_stream_has_its_row() -> None:
    from contracts.league import LEAGUE_PAYLOADS
    from contracts.tournament import TOURNAMENT_PAYLOADS
    from domain.rulesets import RULESET_BY_GAME

    rows = {(e.stream, e.game, e.type) for e in event_rules()}
    assert {("tournament", None, p.TYPE) for p in TOURNAMENT_PAYLOADS} <= rows
    assert {("league", None, p.TYPE) for p in LEAGUE_PAYLOADS} <= rows
    for game, ruleset in RULESET_BY_GAME.items():
        for kind in (ruleset.started_type.TYPE, "game.ended", "game.event_voided", OTHER):
            assert ("game", game, kind) in rows


def test_known_ids_sit_under_their_types_and_not_elsewhere() -> None:
    assert "trickerion.advertise.once_per_turn" in listed("trickerion", "trickerion.advertised")
    assert "trickerion.advertise.once_per_turn" not in listed(
        "trickerion", "trickerion.trick_learned"
    )
    assert "trickerion.event.unknown" in listed("trickerion", "penumbra.tome_gained")
    assert "trickerion.event.unknown" not in listed("trickerion", "trickerion.advertised")
    assert {"log.seq_gap", "log.seq_order"} <= listed("penumbra", "penumbra.tome_gained")
    assert "void.breaks_later_event" in listed("penumbra", "game.event_voided")
    # followed through a factory's closure (penumbra) and a lambda of the table (trickerion)
    assert "penumbra.tome.already_held" in listed("penumbra", "penumbra.tome_gained")
    assert "penumbra.tome.already_held" not in listed("penumbra", "penumbra.tome_lost")
    assert "trickerion.turn.order" in listed("trickerion", "game.turn_started")
    rows = {(e.stream, e.type): set(e.rules) for e in event_rules() if e.game is None}
    assert "tournament.ruling_stands" in rows[("tournament", "tournament.table_result_reported")]
    assert "tournament.ruling_stands" not in rows[("tournament", "tournament.round_closed")]
    assert "tournament.already_created" in rows[("tournament", "tournament.judge_appointed")]
    assert "league.result_places" in rows[("league", "league.game_added")]


def test_the_page_lists_each_type_s_and_route_s_ids_exactly() -> None:
    page = catalogue_page()
    lines = section(page, "By event type")
    groups: dict[str | None, list[Any]] = {}
    for e in event_rules():
        groups.setdefault(e.game or e.stream, []).append(e)
    for group, rows in groups.items():
        start = lines.index(f"### {group.capitalize()} events")
        every = set(IDS.findall(lines[start + 2]))
        table = lines[start + 6 : start + 6 + len(rows)]
        for row, line in zip(rows, table, strict=True):
            kind, own = line.split(" | ")[:2]
            assert row.type == OTHER or f"`{row.type}`" in kind, line
            assert set(IDS.findall(own)) | every == set(row.rules), line
    routes = section(page, "By route")
    for family in FAMILIES:
        at = routes.index(f"### {family.name.capitalize()}")
        end = next((i for i in range(at + 1, len(routes)) if routes[i].startswith("### ")), None)
        shown = {
            (rule, int(line.split(" | ")[0].strip("| ")))
            for line in routes[at:end]
            if line.startswith("| ") and line[2:3].isdigit()
            for rule in IDS.findall(line)
        }
        assert shown == set(family_rules(family)), family.name
    meanings = {
        IDS.findall(line)[0] for line in section(page, "Meanings") if line.startswith("| `")
    }
    assert meanings == set(RULES["meanings"])


def test_every_route_answering_a_problem_is_in_a_family() -> None:
    spec = json.loads((ROOT / "contracts" / "openapi.json").read_text(encoding="utf-8"))
    loose = [
        f"{method.upper()} {path}"
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if any(int(s) >= 400 for s in op.get("responses", {}) if s.isdigit())
        and family_of(path, method) is None
    ]
    assert loose == []


def test_the_write_family_holds_every_id_of_the_write_route_scan() -> None:
    games = {r for r, _ in family_rules(FAMILIES[0])}
    assert {r.rule for r in catalogue()} <= games


def _examples() -> Iterator[list[Envelope]]:
    for path in sorted((ROOT / "contracts" / "examples").glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        yield [parse_event(json.loads(line)) for line in lines if line.strip()]


def _at(event: Envelope, seq: int, **payload: Any) -> Envelope:
    """`event` moved to `seq` with a fresh id, its payload's fields replaced by `payload`."""
    body = event.model_dump(mode="json")
    body.update(seq=seq, event_id=str(uuid4()))
    body["payload"] = {
        **body["payload"],
        **{k: v for k, v in payload.items() if k in body["payload"]},
    }
    return parse_event(body)


def _refusals(log: list[Envelope]) -> Iterator[tuple[str, RuleViolation]]:
    """(event type, refusal) of events put where they break rules: each later event moved
    forward, each earlier one repeated, each with an unknown player, at every position."""
    state: GameState[Any] | None = None
    for i, event in enumerate(log):
        seq = i + 1
        tries = [_at(e, seq) for e in (*log[max(0, i - 3) : i], *log[i + 1 : i + 6])]
        tries.append(_at(event, seq, player_id="nobody", player="nobody"))
        for bad in tries:
            try:
                evolve(state, bad)
            except RuleViolation as refused:
                yield bad.type, refused
        state = evolve(state, event)


def test_every_refusal_the_folds_raise_is_listed_for_its_event_type() -> None:
    """Replay the example games with events moved, repeated or naming nobody at every
    position: each refusal's id is one the catalogue lists for the type that met it."""
    seen: set[tuple[str, str]] = set()
    for log in _examples():
        game = log[0].type.split(".", 1)[0]
        for type_, refused in _refusals(log):
            ids = listed(game, type_)
            assert matches(refused.rule, ids), (game, type_, refused.rule)
            seen.add((type_, refused.rule))
    assert len({rule for _, rule in seen}) >= 20, seen


def _stream_refusals(
    log: list[Any], parse: Callable[[dict[str, Any]], Any], step: Callable[[Any, Any], Any]
) -> Iterator[tuple[str, RuleViolation]]:
    """(event type, refusal) of a tournament's or league's events moved to every position
    (each other event of the log at that seq); `step` appends one to a state copy."""
    for i in range(len(log)):
        before = copy.deepcopy(step(None, log[0])) if i else None
        for event in log[1:i]:
            before = step(before, event)
        for other in log:
            body = other.model_dump(mode="json")
            body.update(seq=i + 1, event_id=str(uuid4()))
            try:
                step(copy.deepcopy(before), parse(body))
            except RuleViolation as refused:
                yield other.type, refused


def _tournament_log() -> list[Any]:
    s = Stream().create(rounds=2).register("a", "b", "c", "d", "e", "f")
    s.seat(1, ("a", "b", "c"), ("d", "e", "f"))
    s.add(JudgeAppointed(judge_id="j1", name="J"))
    s.result(1, 1, ("a", 1, 30), ("b", 2, 20), ("c", 3, 10))
    s.add(TableResultReported(round=1, table=2, results=LINES_DEF, reported_by="t"))
    s.add(TableResultConfirmed(round=1, table=2, player_id="e"))
    s.add(TableResultApproved(round=1, table=2, judge="j1"))
    s.close(1)
    s.add(PlayerDropped(player_id="f", reason="left"))
    s.add(JudgeDismissed(judge_id="j1"))
    return s.events


LINES_DEF = tuple(
    ResultLine(player_id=p, place=pl, score=sc)
    for p, pl, sc in [("d", 1, 9), ("e", 2, 5), ("f", 3, 1)]
)


def _check_stream(stream: str, refusals: Iterator[tuple[str, RuleViolation]]) -> set[str]:
    rows = {e.type: set(e.rules) for e in event_rules() if e.stream == stream}
    seen = set()
    for type_, refused in refusals:
        assert matches(refused.rule, rows[type_]), (type_, refused.rule)
        seen.add(refused.rule)
    return seen


def test_every_refusal_a_tournament_or_league_fold_raises_is_listed_for_its_type() -> None:
    """Tournament and league logs with each event moved to every position: each refusal's id
    is one the catalogue lists for the type that met it (the append's `admit` included)."""
    seen = _check_stream(
        "tournament", _stream_refusals(_tournament_log(), parse_tournament_event, admit)
    )
    assert len(seen) >= 8, seen
    league = [
        LeagueCreated(title="Club", game="penumbra"),
        CUP,
        GAME,
        GameAdded(game_id="g2", at_seq=9, players=GAME.players, results=GAME.results),
    ]
    events = league_events(*league)
    seen = _check_stream("league", _stream_refusals(events, parse_league_event, league_apply))
    assert len(seen) >= 2, seen
