"""Category labels (EN/RU) and the outcome in words, shared by the query service and the CLI.

The rulesets label their own categories; `correction` is the fold's default category for a
referee's `game.score_corrected` (contracts/common.py, `ScoreCorrected.category`), so it is
labelled here for every game.
"""

from __future__ import annotations

from domain.standings import CategoryLabel, Standings

CORRECTION = CategoryLabel(key="correction", en="Correction", ru="Поправка", endgame=False)


def category_labels(standings: Standings) -> list[CategoryLabel]:
    """Every category to show for `standings`, in display order.

    The ruleset's categories first, then `correction`, then any other key found in a player's
    breakdown (labelled with its key), so no point is ever hidden from a table.
    """
    labels = list(standings.categories)
    known = {c.key for c in labels}
    if CORRECTION.key not in known:
        labels.append(CORRECTION)
        known.add(CORRECTION.key)
    for player in standings.players:
        for key in player.categories:
            if key not in known:
                labels.append(CategoryLabel(key=key, en=key, ru=key, endgame=False))
                known.add(key)
    return labels


def outcome_text(result: Standings) -> str:
    """The winner (or shared first place) and the tie-break in words; empty during play."""
    if result.status != "final":
        return ""
    names = {p.player_id: p.name for p in result.players}
    if result.winner is not None:
        text = f"Winner: {names[result.winner]}"
    else:
        text = "Shared first place: " + ", ".join(names[w] for w in result.winners)
    return f"{text} ({result.tie_break})" if result.tie_break else text
