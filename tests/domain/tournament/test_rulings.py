"""A judge's ruling stands (docs/tournament-rules.md, "A judge's ruling stands"): an approval
with `results` replaces the report for good; a later dispute and a plain approval confirm the
ruling; no report is taken after a ruling; the table's history lists every act in order."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.envelope import Payload
from contracts.tournament import (
    ResultLine,
    TableResultApproved,
    TableResultDisputed,
    TableResultReported,
)
from domain.errors import RuleViolation
from domain.tournament.fold import admit, fold
from domain.tournament.standings import standings
from domain.tournament.state import TournamentState
from tests.domain.tournament.stream import Stream

PLAYERS = ("ann", "bob", "cat", "dan")


def lines(order: tuple[str, ...]) -> tuple[ResultLine, ...]:
    return tuple(ResultLine(player_id=p, place=i, score=50 - i) for i, p in enumerate(order, 1))


def cup() -> Stream:
    return Stream().create(rounds=1).register(*PLAYERS).seat(1, PLAYERS)


def test_the_steps_leave_the_ruling_in_force() -> None:
    s = cup()
    s.add(TableResultReported(round=1, table=1, results=lines(PLAYERS), reported_by="ann"))
    ruling = lines(("dan", "cat", "bob", "ann"))
    s.add(TableResultApproved(round=1, table=1, judge="jo", results=ruling))
    s.add(TableResultDisputed(round=1, table=1, by="ann", reason="I won"))
    s.add(TableResultApproved(round=1, table=1, judge="jo"))
    state = fold(s.events)
    table = state.rounds[0].tables[1]
    assert table.approved == ruling
    top = standings(state).lines[0]
    assert (top.player_id, top.points.value) == ("dan", Fraction(7))  # 1st of 4: 7 placement points
    # seq 1 created, 2-5 registered, 6 seated, then the four acts
    assert [(h.seq, h.kind, h.by) for h in table.history] == [
        (7, "reported", "ann"),
        (8, "ruled", "jo"),
        (9, "disputed", "ann"),
        (10, "approved", "jo"),
    ]


def test_no_report_is_taken_after_a_ruling_and_a_stored_one_leaves_the_ruling() -> None:
    s = cup()
    s.add(TableResultReported(round=1, table=1, results=lines(PLAYERS), reported_by="ann"))
    ruling = lines(PLAYERS[::-1])
    s.add(TableResultApproved(round=1, table=1, judge="jo", results=ruling))
    s.add(TableResultDisputed(round=1, table=1, by="ann", reason="I won"))
    before = fold(s.events)
    report = s.add(TableResultReported(round=1, table=1, results=lines(PLAYERS), reported_by="ann"))
    with pytest.raises(RuleViolation) as refused:
        admit(before, report)  # an append
    assert (refused.value.rule, refused.value.field) == (
        "tournament.ruling_stands",
        "payload.results",
    )
    # A stream stored before the rule still folds; its plain approval confirms the ruling.
    s.add(TableResultApproved(round=1, table=1, judge="jo"))
    table = fold(s.events).rounds[0].tables[1]
    assert table.approved == ruling
    assert [h.kind for h in table.history] == [
        "reported",
        "ruled",
        "disputed",
        "reported",
        "approved",
    ]


@dataclass
class Model:
    """The table as the rules page states it."""

    status: str = "seated"
    reported: tuple[str, ...] | None = None
    ruling: tuple[str, ...] | None = None
    approved: tuple[str, ...] | None = None

    def report(self, order: tuple[str, ...]) -> bool:
        if self.status == "approved" or self.ruling is not None:
            return False
        self.reported = order
        self.status = "disputed" if self.status == "disputed" else "reported"
        return True

    def approve(self, order: tuple[str, ...] | None) -> bool:
        result = order or self.ruling or self.reported
        if result is None:
            return False
        if order is not None:
            self.ruling = order
        self.approved, self.status = result, "approved"
        return True

    def dispute(self) -> bool:
        self.approved, self.status = None, "disputed"
        return True


orders = st.permutations(PLAYERS).map(tuple)
steps = st.lists(
    st.one_of(
        st.tuples(st.just("report"), orders),
        st.tuples(st.just("approve"), st.none() | orders),
        st.tuples(st.just("dispute"), st.none()),
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(steps)
def test_random_reports_rulings_and_disputes_agree_with_the_model(
    acts: list[tuple[str, tuple[str, ...] | None]],
) -> None:
    s = cup()
    state: TournamentState = fold(s.events)
    model = Model()
    kinds: list[str] = []
    for kind, order in acts:
        seq = state.seq + 1
        if kind == "report":
            assert order is not None
            payload: Payload = TableResultReported(
                round=1, table=1, results=lines(order), reported_by="p"
            )
            taken = model.report(order)
        elif kind == "approve":
            payload = TableResultApproved(
                round=1, table=1, judge="jo", results=None if order is None else lines(order)
            )
            taken = model.approve(order)
            kind = "approved" if order is None else "ruled"
        else:
            payload = TableResultDisputed(round=1, table=1, by="p", reason="no")
            taken = model.dispute()
        event = Stream(s.tid)
        event.events = list(s.events)
        envelope = event.add(payload, actor="x")
        assert envelope.seq == seq
        try:
            state = admit(state, envelope)
        except RuleViolation:
            assert not taken
            continue
        assert taken
        s.events.append(envelope)
        kinds.append({"report": "reported", "dispute": "disputed"}.get(kind, kind))
        table = state.rounds[0].tables[1]
        assert table.status == model.status
        assert table.approved == (None if model.approved is None else lines(model.approved))
        counted = [line.player_id for line in standings(state).lines]
        if model.status == "approved" and model.approved is not None:
            assert counted == list(model.approved)
    assert [h.kind for h in fold(s.events).rounds[0].tables[1].history] == kinds
