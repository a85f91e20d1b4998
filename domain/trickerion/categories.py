"""Breakdown categories (EN / RU labels) and the rule citations ledger entries carry.

A citation is `docs/rules/trickerion.md#<heading id>`: a page of this repository's docs and a
heading on it (the site serves it at `rules/trickerion/#<heading id>`); the form is described
in docs/architecture/adding-a-game.md#rule-citations and checked by tests/docs.
"""

from __future__ import annotations

from domain.ledger import Category

PAGE = "docs/rules/trickerion.md"
"""The rules page every Trickerion citation names."""

ADVERTISE = f"{PAGE}#advertise"
TRICK_YIELD = f"{PAGE}#trick-yield"
CREATE_LINK = f"{PAGE}#create-a-link"
SHARD_LINK = f"{PAGE}#shard-link"
PERFORM_LINKED = f"{PAGE}#perform-a-linked-card"
PERFORMANCE_CARD = f"{PAGE}#performance-card"
THEATER_SPECIALISTS = f"{PAGE}#theater-specialists"
YIELD_FIRST = f"{PAGE}#performance-order"
GAME_LENGTH = f"{PAGE}#game-length"
END_SHARDS = f"{PAGE}#end-shards"
END_COINS = f"{PAGE}#end-coins"
END_SPECIAL_ASSIGNMENTS = f"{PAGE}#end-special-assignments"
END_LEVEL3 = f"{PAGE}#level-3"
CAP = f"{PAGE}#caps"
BASE_GAME = f"{PAGE}#base-game"
ACADEMY = f"{PAGE}#academy"
DAWN_OF_TECHNOLOGY = f"{PAGE}#dawn-of-technology"
MAGICIAN_POWERS = f"{PAGE}#magician-powers"
ARCANE_ARTS = f"{PAGE}#arcane-arts"
TIE_BREAK = f"{PAGE}#winner"
SETUP = f"{PAGE}#set-up"
OTHER_SOURCES = f"{PAGE}#other-sources"
UNPAID_WAGES = f"{PAGE}#unpaid-wages"
FAME_FLOOR = f"{PAGE}#fame-floor"
JOINED = f"{PAGE}#joined-in-progress"

CITATIONS: tuple[str, ...] = (
    ADVERTISE,
    TRICK_YIELD,
    CREATE_LINK,
    SHARD_LINK,
    PERFORM_LINKED,
    PERFORMANCE_CARD,
    THEATER_SPECIALISTS,
    YIELD_FIRST,
    GAME_LENGTH,
    END_SHARDS,
    END_COINS,
    END_SPECIAL_ASSIGNMENTS,
    END_LEVEL3,
    CAP,
    BASE_GAME,
    ACADEMY,
    DAWN_OF_TECHNOLOGY,
    MAGICIAN_POWERS,
    ARCANE_ARTS,
    TIE_BREAK,
    SETUP,
    OTHER_SOURCES,
    UNPAID_WAGES,
    FAME_FLOOR,
    JOINED,
)
"""Every rule citation Trickerion's ledger entries and refusals can carry."""

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
