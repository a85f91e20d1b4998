"""Breakdown categories (EN / RU labels) and the rule anchors ledger entries cite.

Anchors point at lines of docs/rules/trickerion.md (the specification) or, for
sources the specification does not cover, at sections of docs/rules/trickerion.md.
"""

from __future__ import annotations

from domain.ledger import Category

SPEC = "trickerion-scoring.md"
RESEARCH = "research/trickerion.md"

ADVERTISE = f"{SPEC}#advertise"
TRICK_YIELD = f"{SPEC}#trick-yield"
CREATE_LINK = f"{SPEC}#create-a-link"
SHARD_LINK = f"{SPEC}#create-a-link-shard-link"
PERFORM_LINKED = f"{SPEC}#perform-a-linked-card"
PERFORMANCE_CARD = f"{SPEC}#performance-card"
THEATER_SPECIALISTS = f"{SPEC}#theater-specialists"
YIELD_FIRST = f"{SPEC}#resolve-yields-first"
GAME_LENGTH = f"{SPEC}#end-of-the-game"
END_SHARDS = f"{SPEC}#each-unspent-trickerion-shard"
END_COINS = f"{SPEC}#each-3-leftover-coins"
END_SPECIAL_ASSIGNMENTS = f"{SPEC}#each-special-assignment-card"
END_LEVEL3 = f"{SPEC}#each-eligible-level-3-trick"
CAP = f"{SPEC}#at-most-20-fame"
BASE_GAME = f"{SPEC}#without-the-dark-alley"
ACADEMY = f"{SPEC}#dahlgaards-academy"
DAWN_OF_TECHNOLOGY = f"{SPEC}#dawn-of-technology"
MAGICIAN_POWERS = f"{SPEC}#magician-powers"
ARCANE_ARTS = f"{SPEC}#arcane-arts"
TIE_BREAK = f"{SPEC}#tie-break"
SETUP = f"{RESEARCH}#2-during-play"
OTHER_SOURCES = f"{RESEARCH}#2-during-play"
UNPAID_WAGES = f"{RESEARCH}#5-3-negative-coins"
FAME_FLOOR = f"{RESEARCH}#5-4-negative-fame"

IN_PLAY: tuple[Category, ...] = (
    Category("start", "Starting Fame", "Начальная слава"),
    Category("joined", "Declared on joining", "Объявлено при подключении"),
    Category("advertise", "Advertise", "Реклама"),
    Category("trick_yield", "Trick yields", "Доход от фокусов"),
    Category("link", "Links created", "Созданные связи"),
    Category("performance_links", "Links performed", "Связи на выступлении"),
    Category("performance_bonus", "Performance card bonus", "Бонус карты выступления"),
    Category("theater_specialists", "Theater specialists", "Специалисты в театре"),
    Category("learn", "Learning tricks", "Изучение фокусов"),
    Category("hire", "Hiring", "Найм"),
    Category("wages", "Wages", "Жалованье"),
    Category("unpaid_wages", "Unpaid wages", "Невыплаченное жалованье"),
    Category("arcane_wages", "Arcane wages", "Жалованье тайных работников"),
    Category("purchase", "Market Row", "Рынок"),
    Category("bank", "Bank", "Банк"),
    Category("assignment", "Special Assignments in play", "Особые поручения в игре"),
    Category("prophecy", "Prophecies", "Пророчества"),
    Category("magician", "Magician abilities", "Способности фокусника"),
    Category("renovate", "Academy renovation", "Ремонт Академии"),
    Category("contraption", "Contraptions", "Механизмы"),
    Category("enhance", "Enhance Character", "Усиление персонажа"),
    Category("other", "Other", "Прочее"),
)

END_GAME: tuple[Category, ...] = (
    Category("endgame_shards", "Unspent Shards", "Неизрасходованные осколки", endgame=True),
    Category("endgame_coins", "Leftover Coins", "Оставшиеся монеты", endgame=True),
    Category(
        "special_assignments",
        "Special Assignment cards in hand",
        "Карты особых поручений на руке",
        endgame=True,
    ),
    Category("apprentices", "Apprentices", "Подмастерья", endgame=True),
    Category("specialists", "Specialists", "Специалисты", endgame=True),
    Category("level3_tricks", "Level 3 tricks", "Фокусы 3-го уровня", endgame=True),
    Category("academy", "Dahlgaard's Academy", "Академия Дальгаарда", endgame=True),
)

CATEGORIES: tuple[Category, ...] = IN_PLAY + END_GAME
"""Every breakdown category in display order (in-play first, then end-game)."""
