"""The simulator's own running tally of a Trickerion table (not the domain's: it keeps the
generator rule-valid, e.g. never paying Coins a player does not have).

It mirrors docs/rules/trickerion.md#during-play and the options' default floors
(docs/rules/trickerion.md#unpaid-wages, #fame-floor: Coins never below 0 with 2 Fame per unpaid wage Coin, Fame
clamped at 0). Units: Fame, Coins, Shards (whole numbers).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from contracts.trickerion import TrickerionOptions


@dataclass(slots=True)
class Seat:
    """One player's holdings as the simulator sees them.

    `tricks` learned Trick ids; `markers` Trick markers not yet placed this turn, by trick;
    `hires` characters hired (in order); `assignments` Special Assignment cards in hand;
    `banners` Academy Banners placed; `components` Workshop components by tier.
    """

    player_id: str
    fame: int
    coins: int
    shards: int
    tricks: list[str] = field(default_factory=list)
    markers: dict[str, int] = field(default_factory=dict)
    hires: list[str] = field(default_factory=list)
    assignments: int = 0
    banners: int = 0
    contraptions: int = 0
    components: dict[str, int] = field(
        default_factory=lambda: {"basic": 0, "advanced": 0, "superior": 0}
    )

    def gain_fame(self, amount: int, options: TrickerionOptions) -> None:
        """Add `amount` Fame (signed); clamped at 0 under `fame_floor="clamp_zero"` (§5.4)."""
        self.fame += amount
        if options.fame_floor == "clamp_zero":
            self.fame = max(0, self.fame)

    def pay_wages(self, coins: int, options: TrickerionOptions) -> None:
        """Pay `coins` of wages; unpaid Coins cost `unpaid_coin_fame_penalty` Fame each (§5.3)."""
        unpaid = max(0, coins - self.coins)
        if options.negative_coins == "never" and unpaid:
            self.coins = 0
            self.gain_fame(-unpaid * options.unpaid_coin_fame_penalty, options)
        else:
            self.coins -= coins

    @property
    def specialists(self) -> list[str]:
        """Hired Specialists (Assistant, Manager, Engineer), each once."""
        return [h for h in self.hires if h in ("assistant", "manager", "engineer")]

    @property
    def apprentices(self) -> int:
        """Apprentices for end-game counts: hired ones plus the Assistant's free one (§5.20)."""
        return self.hires.count("apprentice") + (1 if "assistant" in self.hires else 0)


def initiative_order(seats: list[Seat], previous: list[str]) -> list[str]:
    """Turn 2 on: ascending Fame, equal Fame keeping the previous relative order
    (docs/rules/trickerion.md#during-play, 'Initiative track')."""
    by_id = {s.player_id: s for s in seats}
    return sorted(previous, key=lambda pid: (by_id[pid].fame, previous.index(pid)))
