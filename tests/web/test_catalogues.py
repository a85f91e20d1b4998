"""The ru/en catalogues of the pages (services/doors/web/static/i18n/): every key in both languages,
the same placeholders in each, and a description for every event type of every game."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from contracts.events import PAYLOAD_BY_TYPE

I18N = Path(__file__).parents[2] / "services" / "doors" / "web" / "static" / "i18n"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
DERIVED = {"changes", "voided_seq", "who", "best", "unit", "winner"}


def _load(name: str) -> dict[str, Any]:
    return json.loads((I18N / f"{name}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _entries(catalog: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    out = []
    for section in ("events", "words", "tie_break"):
        out += [(f"{section}.{k}", v) for k, v in catalog.get(section, {}).items()]
    return out


@pytest.mark.parametrize("name", sorted(p.stem for p in I18N.glob("*.json") if p.stem != "ui"))
def test_every_entry_has_english_and_russian_with_the_same_placeholders(name: str) -> None:
    for key, entry in _entries(_load(name)):
        assert entry.get("en"), f"{name}.json {key}: no English"
        assert entry.get("ru"), f"{name}.json {key}: no Russian"
        assert set(PLACEHOLDER.findall(entry["en"])) == set(PLACEHOLDER.findall(entry["ru"])), key
        words = PLACEHOLDER.sub("", entry["ru"])  # Russian text, not English left in place
        assert re.search("[а-яё]", words, re.I) or not re.search("[a-z]{4}", words), key


def test_every_interface_word_is_in_both_languages() -> None:
    ui = _load("ui")
    assert set(ui["en"]) == set(ui["ru"])
    assert all(ui["en"][k] and ui["ru"][k] for k in ui["en"])


def test_every_event_type_has_a_description_from_its_own_fields() -> None:
    common = _load("common")["events"]
    for event_type, payload in PAYLOAD_BY_TYPE.items():
        game = event_type.split(".")[0]
        path = I18N / f"{game}.json"
        catalog = _load(game)["events"] if path.exists() and game != "game" else {}
        entry = catalog.get(event_type) or common.get(event_type)
        assert entry, f"no description of {event_type} in {game}.json or common.json"
        fields = set(payload.model_fields) | DERIVED
        assert set(PLACEHOLDER.findall(entry["en"])) <= fields, event_type


def test_no_research_note_reaches_spectators() -> None:
    for path in I18N.glob("*.json"):
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        data.pop("about", None)
        assert "research" not in json.dumps(data, ensure_ascii=False), path.name
