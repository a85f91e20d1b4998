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
from domain.penumbra.state import NO_XP, Tableau, XpCounts

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


def experience_counts(tableau: Tableau, options: PenumbraOptions) -> XpCounts:
    """Experience symbols on completed Trials, fulfilled Contracts and Tomes (rules line 13),
    plus reserved Contracts when `options.xp_on_unfulfilled` (EC-9; REC: not counted)."""
    cards = tableau.trials + tableau.contracts
    if options.xp_on_unfulfilled:
        cards += tableau.reserved_contracts
    every = [c.xp for c in cards] + list(tableau.tomes.values())
    if not every:
        return NO_XP
    a, b, c, d, e, f = map(sum, zip(*every, strict=True))  # kind-wise sums (`add_xp` of all)
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
    the rules' examples 4-2 = 2 and 7-3 = 4 make it absolute, EC-11)."""
    cards = tableau.trials + tableau.contracts
    return abs(sum(c.light for c in cards) - sum(c.dark for c in cards))


def category_vp(tableau: Tableau, options: PenumbraOptions) -> dict[str, int]:
    """Category key -> VP of one player now, for all eight categories, in the rules' order."""
    return {
        "arcana": tableau.arcana,
        "trials": sum(t.vp for t in tableau.trials),
        "mortal_wounds": MORTAL_WOUND_VP * len(tableau.wounds),
        "experience": experience_vp(
            experience_counts(tableau, options), options.six_plus_identical
        ),
        "contracts": contracts_vp(tableau, options),
        "board": sum(m.vp_under for m in tableau.marks if not m.spark),
        "goals": sum(tableau.goals.values()),
        "fate": fate_vp(tableau),
    }


def category_vp_since(
    tableau: Tableau, options: PenumbraOptions, last: tuple[Tableau, dict[str, int]]
) -> dict[str, int]:
    """`category_vp(tableau, options)`, taking from `last` (an earlier tableau of the player and
    its `category_vp` under the same `options`) every category whose inputs are the very same
    objects (a move replaces only the fields it changes, so most events recompute one or two
    categories; docs/decisions/0012-hot-reads-and-off-loop-replays.md: `category_vp` was 8% of the simulated games' fold)."""
    old, kept = last
    vp = kept.copy()  # the same keys in the same order; only what changed is recomputed
    vp["arcana"] = tableau.arcana
    trials = tableau.trials is old.trials
    contracts = tableau.contracts is old.contracts
    reserved = tableau.reserved_contracts is old.reserved_contracts
    if not trials:
        vp["trials"] = sum(t.vp for t in tableau.trials)
    if tableau.wounds is not old.wounds:
        vp["mortal_wounds"] = MORTAL_WOUND_VP * len(tableau.wounds)
    if not (trials and contracts and reserved and tableau.tomes is old.tomes):
        counts = experience_counts(tableau, options)
        vp["experience"] = experience_vp(counts, options.six_plus_identical)
    if not (contracts and reserved):
        vp["contracts"] = contracts_vp(tableau, options)
    if tableau.marks is not old.marks:
        vp["board"] = sum(m.vp_under for m in tableau.marks if not m.spark)
    if tableau.goals is not old.goals:
        vp["goals"] = sum(tableau.goals.values())
    if not (trials and contracts):
        vp["fate"] = fate_vp(tableau)
    return vp
