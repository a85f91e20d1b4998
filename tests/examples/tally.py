"""An independent Trickerion tally: reads a JSONL log as plain JSON and applies
docs/rules/trickerion.md by hand, WITHOUT importing `domain` (only the card
data files, which are printed facts). Used to write and check the example game's score sheet.

Shapes: `tally(lines) -> Sheet`; `Sheet.fame[player][category]` (Fame), `Sheet.work[player]
[category]` (the arithmetic as text), `Sheet.coins` / `Sheet.shards` (final holdings).
Options assumed: the RECs (Coins never below 0, 2 Fame per unpaid wage Coin, Fame floor 0,
Shard Link once per owner, no weekday modifiers); the example game uses exactly those.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "contracts" / "catalogue" / "trickerion"
TRICKS = {t["id"]: t for t in json.loads((DATA / "tricks.json").read_text())["tricks"]}
CARDS = {p["id"]: p for p in json.loads((DATA / "performances.json").read_text())["performances"]}
CAP = 20  # "Each of the listed categories and each individual Level 3 trick can award at most 20 Fame."
ACADEMY = {2: (8,), 3: (12, 6), 4: (15, 10, 5)}  # rules, Module changes: Dahlgaard's Academy


@dataclass
class Sheet:
    players: list[str] = field(default_factory=list)
    fame: dict[str, dict[str, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )
    work: dict[str, dict[str, list[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    coins: dict[str, int] = field(default_factory=dict)
    shards: dict[str, int] = field(default_factory=dict)
    running: dict[str, int] = field(
        default_factory=dict
    )  # in-play Fame, for initiative and the floor
    inventory: dict[str, dict] = field(default_factory=dict)
    tricks: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def add(self, pid: str, category: str, amount: int, why: str) -> None:
        amount = max(amount, -self.running[pid])  # Fame floor 0 (research §5.4 REC)
        if amount == 0 and category not in (
            "endgame_shards",
            "endgame_coins",
            "special_assignments",
            "level3_tricks",
            "academy",
        ):
            return
        self.running[pid] += amount
        self.fame[pid][category] += amount
        self.work[pid][category].append(why)


def tally(lines: list[str]) -> Sheet:
    sheet = Sheet()
    events = [json.loads(line) for line in lines if line.strip()]
    start = events[0]["payload"]
    for p in sorted(start["players"], key=lambda p: p["seat"]):
        pid = p["player_id"]
        sheet.players.append(pid)
        sheet.running[pid] = 0
        sheet.coins[pid] = (10, 12, 14, 16)[
            p["initiative"] - 1
        ]  # research §2: 10/12/14/16 by position
        sheet.shards[pid] = 1
        sheet.add(pid, "start", 5, "starting Fame 5")
    order: list[str] = []
    turn = 0
    for e in events[1:]:
        p, kind = e["payload"], e["type"]
        if kind == "game.turn_started":
            turn, order = p["turn"], p["initiative_order"]
        elif kind == "trickerion.advertised":
            pos = order.index(p["player_id"]) + 1
            assert p["coins_paid"] == pos
            sheet.coins[p["player_id"]] -= pos
            sheet.add(p["player_id"], "advertise", 2, f"T{turn} +2 (paid {pos} C)")
        elif kind == "trickerion.trick_learned":
            sheet.tricks[p["player_id"]].append(p["trick_id"])
            sheet.coins[p["player_id"]] -= p["coins_paid"]
        elif kind == "trickerion.link_created":
            level = TRICKS[p["trick_id"]]["level"]
            if p["reward"] == "fame":
                sheet.add(
                    p["player_id"], "link", level, f"T{turn} {p['trick_id']} L{level} +{level}"
                )
            else:
                sheet.coins[p["player_id"]] += level
            if p["shard_link"]:
                for owner in dict.fromkeys((p["player_id"], p["other_owner_id"])):
                    sheet.shards[owner] += 1
        elif kind == "trickerion.trick_yielded":
            y = TRICKS[p["trick_id"]]["yield"]
            assert (p["fame"], p["coins"], p["shards"]) == (y["fame"], y["coins"], y["shards"])
            sheet.coins[p["owner_id"]] += y["coins"]
            sheet.shards[p["owner_id"]] += y["shards"]
            sheet.add(
                p["owner_id"],
                "trick_yield",
                y["fame"],
                f"T{turn} {p['trick_id']}@{p['performance_card_id']} +{y['fame']}",
            )
        elif kind == "trickerion.performance_given":
            pid, card = p["performer_id"], CARDS[p["performance_card_id"]]
            b = card["bonus"]
            sheet.add(
                pid,
                "performance_links",
                p["links"],
                f"T{turn} {card['id']} {p['links']} Links +{p['links']}",
            )
            sheet.add(pid, "performance_bonus", b["fame"], f"T{turn} {card['id']} +{b['fame']}")
            sheet.coins[pid] += b["coins"] + 3 * ("manager" in p["specialists_behind"])
            sheet.shards[pid] += b["shards"] + ("engineer" in p["specialists_behind"])
            if "assistant" in p["specialists_behind"]:
                sheet.add(pid, "theater_specialists", 2, f"T{turn} Assistant +2")
        elif kind == "trickerion.resources_changed":
            pid = p["player_id"]
            sheet.add(
                pid, p["reason"], p.get("fame", 0), f"T{turn} {p['reason']} {p.get('fame', 0):+d}"
            )
            coins = p.get("coins", 0)
            unpaid = -(sheet.coins[pid] + coins)
            if p["reason"] == "wages" and unpaid > 0:
                sheet.coins[pid] = 0
                sheet.add(pid, "unpaid_wages", -2 * unpaid, f"T{turn} {unpaid} C unpaid x -2")
            else:
                sheet.coins[pid] += coins
            sheet.shards[pid] += p.get("shards", 0)
        elif kind == "trickerion.endgame_inventory_declared":
            sheet.inventory[p["player_id"]] = p
        elif kind == "game.ended":
            _end(sheet, start["options"])
    return sheet


def _end(sheet: Sheet, options: dict) -> None:
    for pid in sheet.players:
        inv = sheet.inventory[pid]
        s, c, sa = sheet.shards[pid], sheet.coins[pid], inv.get("special_assignments_in_hand", 0)
        sheet.add(
            pid,
            "endgame_shards",
            min(s, CAP),
            f"{s} Shards x 1 = {s}" + (" -> cap 20" if s > CAP else ""),
        )
        sheet.add(
            pid,
            "endgame_coins",
            min(c // 3, CAP),
            f"floor({c} C / 3) = {c // 3}" + (" -> cap 20" if c // 3 > CAP else ""),
        )
        sheet.add(pid, "special_assignments", min(2 * sa, CAP), f"{sa} cards x 2 = {2 * sa}")
        l3 = 0
        notes = []
        for h in inv.get("level3_tricks", []):
            trick = TRICKS[h["trick_id"]]
            eligible = h["components_met"] or h.get("markers", 0) >= 1
            points = _condition(trick["endgame"], sheet, pid, inv) if eligible else 0
            why = (
                "components met"
                if h["components_met"]
                else f"{h.get('markers', 0)} Trick marker(s) on it"
            )
            notes.append(
                f"{trick['id']} {trick['name']} ({why}: {'eligible' if eligible else 'not eligible'}), "
                f"'{trick.get('endgame_text', '')}' -> {points}, min(., 20) = {min(points, CAP)}"
            )
            l3 += min(points, CAP)
        sheet.add(pid, "level3_tricks", l3, "; ".join(notes) or "no Level 3 tricks")
    if options.get("academy"):
        _academy(sheet)


def _condition(cond: dict, sheet: Sheet, pid: str, inv: dict) -> int:
    levels = [
        TRICKS[t]["level"] for t in sheet.tricks[pid] if t not in inv.get("set_aside_trick_ids", [])
    ]
    counts = {
        "level1_tricks": levels.count(1),
        "level2_tricks": levels.count(2),
        "level3_tricks": levels.count(3),
        "tricks_owned": len(levels),
        "coins": sheet.coins[pid],
        "held_shards": sheet.shards[pid],
        "apprentices": inv.get("apprentices", 0),
        "special_assignments": inv.get("special_assignments_in_hand", 0),
        "basic_components": inv.get("basic_components", 0),
        "advanced_components": inv.get("advanced_components", 0),
        "superior_components": inv.get("superior_components", 0),
        "workshop_trick_markers": inv.get("workshop_trick_markers", 0),
        **{s: int(s in inv.get("specialists", [])) for s in ("assistant", "manager", "engineer")},
    }
    if cond["kind"] == "per":
        return cond["points"] * (counts[cond["of"]] // cond.get("every", 1))
    return cond["points"] if all(counts[n] >= cond["at_least"] for n in cond["of"]) else 0


def _academy(sheet: Sheet) -> None:
    tiers = ACADEMY[len(sheet.players)]
    banners = {pid: sheet.inventory[pid].get("academy_banners", 0) for pid in sheet.players}
    ranked = sorted((b for b in banners.values() if b > 0), reverse=True)
    for pid, b in banners.items():
        if b == 0:
            sheet.add(pid, "academy", 0, "0 Banners: no rank")
            continue
        first = (
            ranked.index(b) + 1
        )  # the tied group covers ranks first..last; ties take the lower tier
        last = first + ranked.count(b) - 1
        points = tiers[last - 1] if last <= len(tiers) else 0
        sheet.add(
            pid, "academy", points, f"{b} Banners, ranks {first}-{last} -> tier {last}: {points}"
        )
