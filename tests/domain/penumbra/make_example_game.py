"""Writes contracts/examples/penumbra-3p.jsonl: a complete 3-player Penumbra game.

Run: `.venv/bin/python -m tests.domain.penumbra.make_example_game`. The score sheet beside the
JSONL (penumbra-3p.scoresheet.md) was worked out by hand from the steps below, not from this
script's output; test_example_game.py folds the JSONL and compares.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from contracts.common import InitiativeChanged, TurnStarted
from contracts.events import dump_event_json
from tests.domain.penumbra.builders import PenumbraGame

OUT = Path(__file__).resolve().parents[3] / "contracts" / "examples" / "penumbra-3p.jsonl"


def turn(g: PenumbraGame, n: int, *order: str) -> None:
    g.add(TurnStarted(turn=n, initiative_order=order))


def play() -> PenumbraGame:
    """The game, round by round (mira, oren, tess; a Prophecy in round 8, final turns in 9)."""
    g = PenumbraGame(
        ["mira", "oren", "tess"],
        game_id="pen-demo-3p",
        actor="table-3",
        start=datetime(2026, 11, 28, 19, 0, tzinfo=UTC),
        step=timedelta(seconds=70),
    )
    turn(g, 1, "mira", "oren", "tess")
    g.arcana_gained("mira", 3)
    g.trial_reserved("mira", "T-ashen-gate")
    g.arcana_gained("oren", 4)
    g.contract_reserved("oren", "C-herbalist", vp=3, xp={"XP2": 1}, light=1)
    g.arcana_gained("tess", 2)
    g.tome_gained("tess", "TOME-bestiary", xp={"XP1": 1, "XP3": 1})

    turn(g, 2, "oren", "tess", "mira")
    g.contract_fulfilled("oren", "C-herbalist", vp=3, xp={"XP2": 1}, light=1)
    g.arcana_spent("oren", 2)
    g.trial_reserved("tess", "T-drowned-bell")
    g.mortal_wound_taken("tess", "W-07")
    g.arcana_gained("tess", 3)
    g.trial_completed("mira", "T-ashen-gate", vp=4, xp={"XP1": 1, "XP4": 1}, light=1)
    g.arcana_gained("mira", 2)
    g.contract_reserved("mira", "C-scribe", vp=2, xp={"XP3": 1})

    turn(g, 3, "tess", "mira", "oren")
    g.trial_completed("tess", "T-drowned-bell", vp=6, xp={"XP1": 1, "XP2": 1}, dark=1)
    g.arcana_gained("tess", 5)
    g.contract_fulfilled("mira", "C-courier", vp=2, xp={"XP5": 1}, light=1)
    g.mark_placed("mira", "A1", vp_under=1)
    g.arcana_spent("mira", 3)
    g.trial_completed("oren", "T-hollow-oak", vp=5, xp={"XP3": 1, "XP6": 1}, dark=2)
    g.mortal_wound_taken("oren", "W-02")
    g.arcana_gained("oren", 3)
    wrong = g.arcana_gained("oren", 8)
    g.voided(wrong, reason="entered twice by mistake")  # the referee voids it: no effect

    turn(g, 4, "mira", "oren", "tess")
    g.tome_gained("mira", "TOME-astral", xp={"XP2": 1, "XP3": 1, "XP6": 1})
    g.arcana_gained("mira", 4)
    g.contract_reserved("mira", "C-smuggler", vp=4, xp={"XP4": 1}, dark=1)
    g.contract_reservation_removed("mira", "C-scribe")
    g.arcana_gained("oren", 6)
    g.mark_placed("oren", "B2", vp_under=2)
    g.goal_scored("oren", "G-hoarder", vp=3)
    g.contract_reserved("tess", "C-lamplighter", vp=5, xp={"XP5": 2}, light=2)
    g.mark_placed("tess", "A2", vp_under=0)
    g.arcana_spent("tess", 3)

    turn(g, 5, "oren", "tess", "mira")
    g.contract_reserved("oren", "C-bounty", vp=4, xp={"XP4": 1}, dark=1)
    g.trial_reserved("oren", "T-ember-maw")
    g.arcana_gained("oren", 5)
    g.contract_fulfilled("tess", "C-lamplighter", vp=5, xp={"XP5": 2}, light=2)
    g.tome_gained("tess", "TOME-runes", xp={"XP4": 1, "XP6": 1})
    g.mortal_wound_removed("tess", "W-07")
    g.trial_completed("mira", "T-star-well", vp=7, xp={"XP1": 1, "XP5": 1}, light=2)
    g.mortal_wound_taken("mira", "W-11")
    g.arcana_gained("mira", 2)

    turn(g, 6, "tess", "mira", "oren")
    g.trial_completed("tess", "T-moon-stair", vp=8, xp={"XP3": 1, "XP4": 1}, light=1)
    g.arcana_gained("tess", 4)
    g.goal_scored("tess", "G-pilgrim", vp=4)
    g.contract_fulfilled("mira", "C-smuggler", vp=4, xp={"XP4": 1}, dark=1)
    g.mark_placed("mira", "B1", vp_under=2)
    g.mark_placed("mira", "SPARK-1", spark=True)
    g.trial_completed("oren", "T-ember-maw", vp=6, xp={"XP1": 1, "XP5": 1}, dark=2)
    g.arcana_spent("oren", 4)
    g.tome_gained("oren", "TOME-chains", xp={"XP2": 1, "XP4": 1})

    turn(g, 7, "mira", "oren", "tess")
    g.trial_reserved("mira", "T-glass-spire")
    g.arcana_gained("mira", 3)
    g.goal_scored("mira", "G-scholar", vp=3)
    g.mark_placed("oren", "C1", vp_under=3)
    g.contract_fulfilled("oren", "C-night-watch", vp=3, xp={"XP6": 1}, dark=1)
    g.arcana_gained("oren", 2)
    g.contract_reserved("tess", "C-ferryman", vp=2, xp={"XP1": 1})
    g.mark_placed("tess", "C3", vp_under=3)
    g.arcana_gained("tess", 1)
    g.mortal_wound_taken("tess", "W-04")
    g.trial_reserved("tess", "T-iron-crown")

    turn(g, 8, "oren", "tess", "mira")
    g.add(InitiativeChanged(initiative_order=("oren", "mira", "tess"), reason="Haste spell"))
    g.arcana_spent("oren", 3)
    g.goal_revoked("oren", "G-hoarder")
    g.arcana_spent("tess", 2)
    g.trial_reservation_cleared("tess", "T-iron-crown")
    g.trial_completed("tess", "T-sunken-road", vp=5, xp={"XP5": 1, "XP6": 1}, dark=3)
    g.trial_completed(
        "mira", "T-glass-spire", vp=9, xp={"XP2": 1, "XP3": 1, "XP6": 1}, light=1, dark=1
    )
    g.prophecy("PR-eclipse", by="mira")

    turn(g, 9, "oren", "tess", "mira")  # the one more turn each (rules line 1)
    g.arcana_gained("oren", 2)
    g.goal_scored("oren", "G-collector", vp=2)
    g.prophecy("PR-famine", by="oren")  # ignored: the end is already set (EC-20)
    g.final_turn("oren")
    g.tome_gained("tess", "TOME-herbal", xp={"XP2": 1})
    g.final_turn("tess")
    g.arcana_spent("mira", 2)
    g.mark_placed("mira", "A3", vp_under=1)
    g.final_turn("mira")
    g.ended("Prophecy PR-eclipse fulfilled; final turns taken")
    return g


def main() -> None:
    """Fold-check the game, then write one envelope per line."""
    g = play()
    g.state()  # raises RuleViolation if any event breaks a rule
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(dump_event_json(e) + "\n" for e in g.events), encoding="utf-8")
    print(f"wrote {len(g.events)} events to {OUT}")


if __name__ == "__main__":
    main()
