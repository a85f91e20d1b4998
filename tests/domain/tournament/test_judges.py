"""Judges in the tournament fold: appointed once, dismissed only while in office, at most 20."""

from __future__ import annotations

import pytest

from contracts.tournament import JudgeAppointed, JudgeDismissed
from domain.errors import RuleViolation
from domain.tournament.fold import fold
from tests.domain.tournament.stream import Stream


def test_judges_are_appointed_and_dismissed() -> None:
    s = Stream().create().register("a")
    s.add(JudgeAppointed(judge_id="jo", name="Jo"))
    s.add(JudgeAppointed(judge_id="max", name="Max"))
    assert fold(s.events).judges == {"jo": "Jo", "max": "Max"}
    s.add(JudgeDismissed(judge_id="jo"))
    assert fold(s.events).judges == {"max": "Max"}
    # A replay before the dismissal still has Jo.
    assert fold(s.events, upto_seq=len(s.events) - 1).judges == {"jo": "Jo", "max": "Max"}


@pytest.mark.parametrize(
    ("payloads", "rule"),
    [
        ([JudgeAppointed(judge_id="jo", name="Jo")] * 2, "tournament.judge_exists"),
        ([JudgeDismissed(judge_id="jo")], "tournament.unknown_judge"),
        (
            [JudgeAppointed(judge_id=f"j{i}", name="J") for i in range(21)],
            "tournament.too_many_judges",
        ),
    ],
)
def test_judge_rules(payloads: list[JudgeAppointed | JudgeDismissed], rule: str) -> None:
    s = Stream().create()
    for payload in payloads:
        s.add(payload)
    with pytest.raises(RuleViolation) as refused:
        fold(s.events)
    assert refused.value.rule == rule
