"""Write the example game's `.scoresheet.md` and `.expected.json` from the independent tally
(`tests/examples/tally.py`, no domain code): `python -m tests.examples.make_scoresheet`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.examples.tally import Sheet, tally

EXAMPLE = (
    Path(__file__).resolve().parents[2]
    / "contracts"
    / "examples"
    / "trickerion-4p-dark-alley-academy"
)
ORDER = (
    "start",
    "advertise",
    "trick_yield",
    "link",
    "performance_links",
    "performance_bonus",
    "theater_specialists",
    "renovate",
    "unpaid_wages",
    "endgame_shards",
    "endgame_coins",
    "special_assignments",
    "level3_tricks",
    "academy",
)


def expected(sheet: Sheet) -> dict:
    """`{"game_id", "winner", "players": {pid: {"total", "categories", "coins", "shards"}}}`."""
    players = {
        pid: {
            "total": sum(sheet.fame[pid].values()),
            "categories": {k: sheet.fame[pid][k] for k in ORDER if k in sheet.fame[pid]},
            "coins": sheet.coins[pid],
            "shards": sheet.shards[pid],
        }
        for pid in sheet.players
    }
    best = max(p["total"] for p in players.values())
    winners = [pid for pid, p in players.items() if p["total"] == best]
    return {
        "game_id": "tr-4p-dark-alley-academy",
        "winner": winners[0] if len(winners) == 1 else None,
        "players": players,
    }


def markdown(sheet: Sheet, result: dict) -> str:
    out = [
        "# Score sheet: trickerion-4p-dark-alley-academy.jsonl",
        "",
        "Worked out from the events and docs/rules/trickerion.md, category by category,",
        "independently of `domain/` (tally: `tests/examples/tally.py`, which reads the JSONL as plain",
        "JSON and the printed card data). Options: Dark Alley + Dahlgaard's Academy, every REC default.",
        "Units: Fame unless marked C (Coins) or S (Shards).",
        "",
        "| player | " + " | ".join(ORDER) + " | total |",
        "|---|" + "---:|" * (len(ORDER) + 1),
    ]
    for pid in sheet.players:
        cats = result["players"][pid]["categories"]
        out.append(
            f"| {pid} | "
            + " | ".join(str(cats.get(k, 0)) for k in ORDER)
            + f" | **{result['players'][pid]['total']}** |"
        )
    out += ["", f"Winner: **{result['winner']}**.", ""]
    for pid in sheet.players:
        p = result["players"][pid]
        out += [f"## {pid}: {p['total']} Fame (final {p['coins']} C, {p['shards']} S)", ""]
        for key in ORDER:
            if key not in sheet.work[pid]:
                continue
            terms = sheet.work[pid][key]
            out.append(f"- **{key}** = {sheet.fame[pid][key]}: " + "; ".join(terms))
        out.append("")
    return "\n".join(out + HAND_CHECK)


HAND_CHECK = [
    "## Hand check of the end-game lines (docs/rules/trickerion.md#end-of-game)",
    "",
    "Checked line by line against the rules, not against code:",
    "",
    "- Each unspent Shard = 1 Fame, cap 20: greta 7, bruno 6, dmitri 4, alma 13 (none near the cap).",
    "- Each 3 leftover Coins = 1 Fame, cap 20: greta floor(49/3) = 16, bruno floor(16/3) = 5,",
    "  dmitri floor(4/3) = 1, alma floor(30/3) = 10; remainders (1, 1, 1, 0 Coins) are worth nothing.",
    "- Each Special Assignment card in hand = 2 Fame, cap 20: greta 4 x 2 = 8, the others 2 x 2 = 4.",
    "- Level 3 tricks: only greta owns one, T36 Transported Man ('4 per Level 3 Trick owned, itself",
    "  included'). Its components (3 Fabric, 2 Petroleum, 2 Disguise) are not met, but it has 1 Trick",
    "  marker, so it is eligible by the Academy clarification; greta owns 1 Level 3 trick: 4 x 1 = 4.",
    "- Dahlgaard's Academy, 4 players: tiers 15 / 10 / 5, ties take the lower tier, no Banners no rank.",
    "  Banners: alma 10, dmitri 10, bruno 4, greta 0. alma and dmitri tie over ranks 1-2: both take",
    "  tier 2 = 10 (not 15); bruno is rank 3 = 5; greta has no Banners = 0.",
    "- In-play Fame is never capped; the Academy points come after the regular end-game Fame.",
    "- Winner: greta 93 > alma 92 (no tie, so the initiative tie-break is not needed).",
    "",
    "Note: `renovate` (Academy Renovate, Coins -> Fame) is an in-play source the rules page lists",
    "among the other sources (docs/rules/trickerion.md#other-sources); the events carry its amounts.",
    "",
]


def main() -> None:
    lines = EXAMPLE.with_suffix(".jsonl").read_text(encoding="utf-8").splitlines()
    sheet = tally(lines)
    result = expected(sheet)
    EXAMPLE.with_suffix(".expected.json").write_text(
        json.dumps(result, indent=1) + "\n", encoding="utf-8"
    )
    EXAMPLE.with_suffix(".scoresheet.md").write_text(markdown(sheet, result), encoding="utf-8")


if __name__ == "__main__":
    main()
