"""The eight VP categories of the end-game tally, each a function of a player's `Tableau`.

docs/rules/penumbra.md#categories, in the rules' order: АРКАНА (line 7), ИСПЫТАНИЯ (9), СМЕРТЕЛЬНЫЕ
РАНЕНИЯ (11), ОПЫТ (13-24), КОНТРАКТЫ (26-28), ПЛАНШЕТ (30), ЦЕЛИ (32), СУДЬБА (34-40).
Applied to the current state they give the "if the game ended now" score (research §8).
"""

from __future__ import annotations

from contracts.penumbra import PenumbraOptions
from domain.ledger import Category
from domain.penumbra.catalog import MORTAL_WOUND_VP, RESERVED_CONTRACT_VP
from domain.penumbra.experience import experience_vp
from domain.penumbra.state import Tableau, XpCounts

RULES = "docs/rules/penumbra.md"
"""The rules page every Penumbra citation names (`<page>#<heading id>`, see
docs/architecture/adding-a-game.md#rule-citations)."""

# Scored live as "if the game ended now", so `endgame` is False: nothing waits for game.ended.
CATEGORIES: tuple[Category, ...] = (
    Category("arcana", "Arcana", "Аркана"),
    Category("trials", "Trials", "Испытания"),
    Category("mortal_wounds", "Mortal Wounds", "Смертельные ранения"),
    Category("experience", "Experience", "Опыт"),
    Category("contracts", "Contracts", "Контракты"),
    Category("board", "Board", "Планшет"),
    Category("goals", "Goals", "Цели"),
    Category("fate", "Fate", "Судьба"),
    Category("joined", "Declared on joining", "Объявлено при подключении"),
)

RULE_LINE: dict[str, str] = {
    "arcana": f"{RULES}#arcana",
    "trials": f"{RULES}#trials",
    "mortal_wounds": f"{RULES}#mortal-wounds",
    "experience": f"{RULES}#experience",
    "contracts": f"{RULES}#reserved-contracts",
    "board": f"{RULES}#board",
    "goals": f"{RULES}#goals",
    "fate": f"{RULES}#fate",
}
"""Category key -> the rules section it implements (ledger entries cite it)."""

JOINED = f"{RULES}#joined-in-progress"
"""The citation of every ledger entry a join declares."""

RESERVED_TRIAL = f"{RULES}#reserved-trial"
"""The rules section on the one reserved Trial (cited by refusals)."""

TIE_BREAK = f"{RULES}#winner"
"""The rules section on the winner and ties."""

CITATIONS: tuple[str, ...] = (*RULE_LINE.values(), JOINED, RESERVED_TRIAL, TIE_BREAK)
"""Every rule citation Penumbra's ledger entries and tie notes can carry."""

CARD_CATEGORIES = ("trials", "mortal_wounds", "experience", "contracts", "board", "goals", "fate")
"""The categories after Arcana that `category_vp` scores, in its (the rules') order."""

CardVp = tuple[int, int, int, int, int, int, int]
"""VP of the `CARD_CATEGORIES`, in their order."""


def experience_counts(tableau: Tableau, options: PenumbraOptions) -> XpCounts:
    """Experience symbols on completed Trials, fulfilled Contracts and Tomes (rules line 13),
    plus reserved Contracts when `options.xp_on_unfulfilled` (EC-9; REC: not counted).

    Kind-wise sums (`add_xp` of all) in a plain loop: `map(sum, zip(*every))` cost twice as
    much for the few cards a tableau holds (docs/profiles/fold-event-cost.md)."""
    cards = tableau.trials + tableau.contracts
    if options.xp_on_unfulfilled:
        cards += tableau.reserved_contracts
    a = b = c = d = e = f = 0
    for xa, xb, xc, xd, xe, xf in [card.xp for card in cards] + [*tableau.tomes.values()]:
        a += xa
        b += xb
        c += xc
        d += xd
        e += xe
        f += xf
    return (a, b, c, d, e, f)


def contracts_vp(tableau: Tableau, options: PenumbraOptions) -> int:
    """КОНТРАКТЫ: printed VP of fulfilled Contracts (line 26), -3 for reserved unfulfilled ones
    (line 28): per Contract (REC) or once for any (research §9.3, EC-29)."""
    open_reservations = len(tableau.reserved_contracts)
    if options.reserved_contract_penalty == "once":
        open_reservations = min(open_reservations, 1)
    return sum(c.vp for c in tableau.contracts) + RESERVED_CONTRACT_VP * open_reservations


def fate_vp(tableau: Tableau) -> int:
    """СУДЬБА: |Light - Dark| over completed Trials and fulfilled Contracts (lines 34-40;
    the rules' examples 4-2 = 2 and 7-3 = 4 make it absolute, EC-11). One pass over the cards
    (two generator sums cost more; the fold asks per card event)."""
    light = dark = 0
    for card in tableau.trials + tableau.contracts:
        light += card.light
        dark += card.dark
    return abs(light - dark)


def category_vp(tableau: Tableau, options: PenumbraOptions) -> dict[str, int]:
    """Category key -> VP of one player now, for all eight categories, in the rules' order:
    Arcana, then `card_vp`'s (the one place of their formulas)."""
    cards = zip(CARD_CATEGORIES, card_vp(tableau, options), strict=True)
    return {"arcana": tableau.arcana, **dict(cards)}


def card_vp(t: Tableau, options: PenumbraOptions) -> CardVp:
    """VP of the `CARD_CATEGORIES` of one tableau: `category_vp` without Arcana, as a tuple."""
    return (
        sum(c.vp for c in t.trials),
        MORTAL_WOUND_VP * len(t.wounds),
        experience_vp(experience_counts(t, options), options.six_plus_identical),
        contracts_vp(t, options),
        sum(m.vp_under for m in t.marks if not m.spark),
        sum(t.goals.values()),
        fate_vp(t),
    )


def card_vp_since(t: Tableau, options: PenumbraOptions, t0: Tableau, vp0: CardVp) -> CardVp:
    """`card_vp(t, options)` from `vp0`, the `card_vp` of `t0` (any tableau of the player under
    the same options): a category is computed again only when a field it reads is not the
    very same object in both."""
    trials_vp, wounds_vp, xp_vp, contracts, board, goals, fate = vp0
    trials = t.trials is t0.trials
    fulfilled = t.contracts is t0.contracts
    reserved = t.reserved_contracts is t0.reserved_contracts
    if not trials:
        trials_vp = sum(c.vp for c in t.trials)
    if t.wounds is not t0.wounds:
        wounds_vp = MORTAL_WOUND_VP * len(t.wounds)
    if not (trials and fulfilled and reserved and t.tomes is t0.tomes):
        xp_vp = experience_vp(experience_counts(t, options), options.six_plus_identical)
    if not (fulfilled and reserved):
        contracts = contracts_vp(t, options)
    if t.marks is not t0.marks:
        board = sum(m.vp_under for m in t.marks if not m.spark)
    if t.goals is not t0.goals:
        goals = sum(t.goals.values())
    if not (trials and fulfilled):
        fate = fate_vp(t)
    return (trials_vp, wounds_vp, xp_vp, contracts, board, goals, fate)
