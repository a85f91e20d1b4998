"""What real Trickerion tables add to the simulator's plain play: every ruleset option value,
varied Special Assignment cards, referee voids and corrections, initiative changes.

Special Assignments follow docs/rules/trickerion.md#during-play (BGA `Assignments/`); each returns the
signed Fame / Coins / Shards change or None when it does not apply. A referee void always
targets a mistaken event the simulator never counted in its tally, right after it, so nothing
later depends on it (a void that would break a later event is refused, domain/fold.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from contracts.trickerion import ExtraTrick, TrickerionOptions
from services.simulator.trickerion_tally import Seat

Change = dict[str, int]


def random_options(rng: random.Random) -> TrickerionOptions:
    """A module combination as tables play them (Dark Alley common, the rest now and then) and
    every REC option drawn, the REC (default) half the time."""

    def pick(default: object, *others: object) -> object:
        return default if rng.random() < 0.5 else rng.choice(others)

    return TrickerionOptions.model_validate(
        {
            "dark_alley": rng.random() < 0.7,
            "academy": rng.random() < 0.35,
            "dawn_of_technology": rng.random() < 0.2,
            "magician_powers": rng.random() < 0.2,
            "arcane_arts": rng.random() < 0.2,
            "weekday_yield_modifiers": rng.random() < 0.2,
            "dot_rounding": pick("ceil_two_thirds", "two_per_started_three"),
            "dot_category_cap": pick(True, False),
            "dot_with_magician_powers": pick("magician_powers_wins", "dot_applies"),
            "academy_ties": pick("lowest_covered_tier", "next_tier_down"),
            "shard_link_same_owner": pick("once_per_owner", "per_marker"),
            "negative_coins": pick("never", "allow"),
            "unpaid_coin_fame_penalty": pick(2, 1, 3),
            "fame_floor": pick("clamp_zero", "allow_negative"),
            "protege_counts_as_specialist": pick(False, True),
            "markers_on_performance_cards_count": pick(False, True),
            "horror_saws_shards": pick("all_held", "excluding_contraption"),
            "shapeshifter_choice": pick("one_type_for_all", "best_per_condition"),
            "category_cap": pick(20, 15, 25),
            "tie_break_ranks": pick("shared", "ordered"),
        }
    )


def _buying_time(seat: Seat, rng: random.Random) -> Change | None:
    return {"coins": 3}


def _fame_and_fortune(seat: Seat, rng: random.Random) -> Change | None:
    die = rng.randint(1, 6)
    return {"coins": die, "fame": die - 1} if die > 1 else {"coins": die}


def _workshop_exhibition(seat: Seat, rng: random.Random) -> Change | None:
    paid = rng.randint(2, 4)
    return {"coins": -paid, "fame": paid - 1} if seat.coins >= paid else None


def _invention(seat: Seat, rng: random.Random) -> Change | None:
    count = seat.components["advanced"] + seat.components["superior"]
    return {"fame": min(count, 6)} if count else None


def _unstable_prototype(seat: Seat, rng: random.Random) -> Change | None:
    n = rng.randint(1, 3)
    return {"fame": n, "coins": n}


def _enhance_trick(seat: Seat, rng: random.Random) -> Change | None:
    return {"shards": -1} if seat.shards else None


def _interest(seat: Seat, rng: random.Random) -> Change | None:
    return {"coins": rng.randint(1, 3)}


ASSIGNMENTS: tuple[tuple[str, Callable[[Seat, random.Random], Change | None]], ...] = (
    ("A10 Buying Time", _buying_time),
    ("A19 Invention", _invention),
    ("A21 Unstable Prototype", _unstable_prototype),
    ("A22 Enhance Trick", _enhance_trick),
    ("A33 Fame and Fortune", _fame_and_fortune),
    ("A34 Interest", _interest),
    ("A39 Workshop Exhibition", _workshop_exhibition),
)
"""Special Assignment cards that move Fame / Coins / Shards (docs/rules/trickerion.md#during-play)."""


def play_assignment(seat: Seat, rng: random.Random, opts: TrickerionOptions) -> tuple[str, Change]:
    """Play one drawn Special Assignment card from the hand: its name and its change (applied to
    `seat`), or ("", {}) when the drawn card has no Fame / Coins / Shards effect now."""
    name, effect = rng.choice(ASSIGNMENTS)
    change = effect(seat, rng)
    if not change:
        return "", {}
    seat.gain_fame(change.get("fame", 0), opts)
    seat.coins += change.get("coins", 0)
    seat.shards += change.get("shards", 0)
    return name, change


def swapped(order: list[str], rng: random.Random) -> list[str]:
    """The initiative order with two neighbours swapped (a card moved one on the track)."""
    out = list(order)
    i = rng.randrange(len(out) - 1)
    out[i], out[i + 1] = out[i + 1], out[i]
    return out


PROMOS: tuple[dict[str, object], ...] = (
    {
        "id": "X-PROMO1",
        "name": "Vanishing Lantern",
        "category": "optical",
        "level": 1,
        "printed_yield": {"fame": 2, "coins": 1},
        "markers": 2,
        "components": {"glass": 2},
        "source": "simulated promo card",
    },
    {
        "id": "X-SIG1",
        "name": "Clockwork Oracle",
        "category": "mechanical",
        "level": 3,
        "printed_yield": {"fame": 5, "coins": 3, "shards": 1},
        "markers": 2,
        "components": {"cog": 2, "metal": 2},
        "endgame": {"kind": "per", "of": "level1_tricks", "points": 3},
        "endgame_text": "3 per Level 1 Trick owned",
        "source": "simulated Signature Trick",
    },
)
"""Cards outside the catalog some tables use (checked like catalog cards at game start)."""


def extra_for(rng: random.Random, opts: TrickerionOptions) -> tuple[ExtraTrick, ...]:
    """The extra Trick cards a table declares: none at most tables, a promo or two now and then
    (the Level 3 one only with the Dark Alley)."""
    if rng.random() >= 0.15:
        return ()
    usable = [p for p in PROMOS if p["level"] != 3 or opts.dark_alley]
    return tuple(
        ExtraTrick.model_validate(p) for p in rng.sample(usable, rng.randint(1, len(usable)))
    )
