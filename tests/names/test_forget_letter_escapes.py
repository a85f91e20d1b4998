"""A dead letter's raw may spell a name with any valid JSON escapes (upper-case hex, a partly
escaped name, an escaped space). Forget replaced the name only as `json.dumps` spells it (or
raw UTF-8), so those spellings kept the name in the letter after the forget (docs/forget.md)."""

from __future__ import annotations

import json
import uuid

import pytest

from contracts.events import parse_event_json
from services.bootstrap import memory_ports, use_cases
from services.platform.settings import ServiceSettings
from services.ports.deadletters import DeadLetter
from services.usecases.names import NamedEventLog
from tests.names.helpers import GAME, NAME, PLAYER, lines

SPELLINGS = {
    "upper-hex": '"Alma Nov\\u00E1kov\\u00E1"',
    "partly-escaped": '"Alma Nov\\u00e1ková"',
    "escaped-space": '"Alma\\u0020Nováková"',
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
async def test_a_forget_leaves_no_spelling_of_the_name_in_the_game_s_letter(
    spelling: str,
) -> None:
    """A letter whose raw spells the name with other JSON escapes keeps it after a forget."""
    ports = memory_ports(4)
    cases = use_cases(ports, ServiceSettings(shards=4))
    assert ports.names is not None
    await NamedEventLog(ports.log, ports.names).append(
        GAME, [parse_event_json(line) for line in lines()[:2]]
    )
    again = json.loads(lines()[0])
    again["event_id"] = str(uuid.uuid4())
    raw = json.dumps(again, ensure_ascii=False).replace(
        json.dumps(NAME, ensure_ascii=False), SPELLINGS[spelling]
    )
    assert [p["name"] for p in json.loads(raw)["payload"]["players"]].count(NAME) == 1
    reason = {"kind": "conflict", "rule": "log.expected_version"}
    await ports.letters.put(DeadLetter(raw.encode(), reason, "inbox", {"inbox_id": "9-0"}))
    assert cases.forget is not None
    await cases.forget.forget(GAME, PLAYER)
    [kept] = await ports.letters.read()
    names = [p["name"] for p in json.loads(kept.letter.raw)["payload"]["players"]]
    assert NAME not in names, f"{NAME!r} still in the game's dead letter after the forget"


def test_every_literal_reading_as_the_name_is_replaced_and_nothing_else() -> None:
    from services.ports.deadletters import scrubbed
    from services.usecases.forget import replacements

    pairs = replacements(NAME, "player-2")
    raw = (
        b'{"game_id":"g","a":"Alma Nov\\u00E1kov\\u00E1","b":"Alma Nov\\u00e1kov\\u00e1 jr",'
        b'"c":"say \\"Alma Nov\\u00e1kov\\u00e1\\"","d":"Alma Nov\xc3\xa1kov\xc3\xa1","e":"Alma No'
    )  # the last literal cut short, as a size limit cuts a raw
    out = scrubbed(DeadLetter(raw, {}, "inbox", {"game": "g"}), "g", pairs)
    assert out == (
        b'{"game_id":"g","a":"player-2","b":"Alma Nov\\u00e1kov\\u00e1 jr",'
        b'"c":"say \\"Alma Nov\\u00e1kov\\u00e1\\"","d":"player-2","e":"Alma No'
    )
    assert scrubbed(DeadLetter(raw, {}, "inbox", {"game": "other"}), "g2", pairs) is None
    wide = json.dumps({"players": [{"name": NAME}]}, ensure_ascii=False).encode("utf-16")
    again = scrubbed(DeadLetter(wide, {}, "inbox", {"game": "g"}), "g", pairs)
    assert again is not None
    assert json.loads(again) == {"players": [{"name": "player-2"}]}  # UTF-16 still
