"""Which inbox entries may hold a player's name (`FieldsForm.may_name`, the door's
`INBOX_FORM`): those the settling use case deletes once settled instead of keeping them for the
inbox retention (docs/forget.md, "Where a name rests"). Names are posted only in a
`*.game_started` event, so an entry is kept only when none of its events can be one: no text
of it spells the type, or it reads as events none of which is typed as a start."""

from __future__ import annotations

import json

import pytest
from faststream.redis.parser import BinaryMessageFormatV1

from services.doors.ingest.inbox_entry import INBOX_FORM
from tests.names.helpers import lines

START, TURN, GAINED = lines()[:3]
TOKEN = b"a-token-0123456789abcdef0123456789abcdef"


def fields(data: bytes) -> dict[bytes, bytes]:
    return {b"data": data, b"token": TOKEN}


def escaped_type(line: bytes) -> bytes:
    """`line` with its type's `d` written as the JSON escape `\\u0064`: the same event."""
    return line.replace(b'game_started"', b'game_starte\\u0064"')


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (START, True),
        (b"[" + START + b"," + TURN + b"]", True),  # a batch creating the game
        (b"[" + TURN + b"," + GAINED + b"]", False),
        (TURN, False),
        (escaped_type(START), True),  # `game_started` spelled with an escape
        (b'{"type":"game.turn_started","payload":{"reason":"game_started"}}', False),
        (START[:-20], True),  # cut short: not JSON, and may name someone
        (b'{"event_id": ', False),  # not JSON, and cannot spell a start
        (b"{}", False),
        (b'"penumbra.game_started"', True),  # spells it, in no event shape
        (b"[[" + START + b"]]", True),
        (b'{"type":["penumbra.game_started"]}', True),
        (b'{"type":"game.turn_started","payload":{"note":"\\u00e9"}}', False),
        (START.decode().encode("utf-16"), True),  # json.loads reads UTF-16 and UTF-32 too
        (START.decode().encode("utf-32-le"), True),
        (TURN.decode().encode("utf-16-be"), False),  # decoded: no start in it
    ],
)
def test_an_entry_may_name_a_player_only_if_an_event_of_it_can_be_a_start(
    data: bytes, named: bool
) -> None:
    assert json.loads(START)["type"] == "penumbra.game_started"
    assert INBOX_FORM.may_name(fields(data)) is named


def test_an_entry_without_a_data_field_is_looked_at_whole() -> None:
    assert INBOX_FORM.may_name({b"dta": START, b"token": TOKEN}) is True
    assert INBOX_FORM.may_name({b"dta": TURN, b"token": TOKEN}) is False


async def test_a_faststream_entry_is_read_through_its_format() -> None:
    def packed(body: bytes) -> dict[bytes, bytes]:
        return {b"__data__": body}

    async def encode(body: bytes) -> bytes:
        return await BinaryMessageFormatV1.encode(
            message=body, reply_to=None, headers={"token": TOKEN.decode()}, correlation_id="c"
        )

    assert INBOX_FORM.may_name(packed(await encode(START))) is True
    assert INBOX_FORM.may_name(packed(await encode(TURN))) is False
    assert INBOX_FORM.may_name(packed(b"not the binary format: game_started")) is True
