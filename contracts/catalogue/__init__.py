"""The games' card catalogues as data, published with the contracts: the schemas name their
ids (`contracts.trickerion.TrickId`) and the domain reads its amounts from the same files
(`domain.trickerion.catalog`). Files: `trickerion/tricks.json` (48 Trick cards: level, yield,
markers, components), `performances.json` (28 Performance cards), `characters.json`,
`limits.json`; `penumbra/cards.json` (the card kinds Penumbra events name, their values'
bounds and the tally's fixed VP; read by `contracts.penumbra` and `domain.penumbra.catalog`).
Each names its source in its `source` field. The rules they serve:
docs/rules/trickerion.md#level-3, docs/rules/trickerion.md#performance-card,
docs/rules/trickerion.md#characters, docs/rules/penumbra.md#categories.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any


@cache
def text(game: str, name: str) -> str:
    """The UTF-8 text of catalogue file `name` of `game` (`"trickerion"`, `"tricks.json"`).

    Raises:
        FileNotFoundError: no such file.
    """
    return files("contracts.catalogue").joinpath(game, name).read_text(encoding="utf-8")


def read(game: str, name: str) -> Any:
    """The JSON value of catalogue file `name` of `game` (a fresh copy per call)."""
    return json.loads(text(game, name))
