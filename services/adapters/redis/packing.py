"""Commands packed by hiredis (C) on the asyncio client, as redis-py's sync client already does.

redis-py's sync `Connection` packs with `HiredisRespSerializer` whenever hiredis is installed;
its asyncio `Connection` always packs in Python, argument by argument. The append call of a
50-event batch has 212 arguments: 184 µs to pack in Python, 32 µs with hiredis (docs/decisions/0012-hot-reads-and-off-loop-replays.md,
ingest profile; the projector's writes are as large). `hiredis_packing(cls)` is `cls` with
the sync client's packer; without hiredis it is `cls` itself.

That packer (`HiredisRespSerializer.pack`) first copies the arguments through a Python
generator (turning a `bytearray` or `memoryview` into bytes): 76 µs of a 203-argument append
call's 111 (hiredis's own `pack_command`: 35 µs). A command of one word (every command this
process sends by name, `EVALSHA` included, as str or bytes) is handed to `hiredis.pack_command` as is; one it
refuses (a `bytearray`, a bool, None) and a name of two words (`SCRIPT LOAD`; a str name: split at any whitespace, as the serializer does) go through
the serializer, which converts them or raises `DataError`, as before.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio.connection import AbstractConnection
from redis.connection import HiredisRespSerializer
from redis.utils import HIREDIS_AVAILABLE

if HIREDIS_AVAILABLE:
    from hiredis import pack_command as _pack_command

_PACKER = HiredisRespSerializer() if HIREDIS_AVAILABLE else None
_MADE: dict[str, type[AbstractConnection]] = {}


def hiredis_packing(cls: type[AbstractConnection]) -> type[AbstractConnection]:
    """`cls` packing its commands with hiredis (one class per `cls`; `cls` without hiredis).

    The packed bytes are the same RESP; an argument hiredis cannot pack (not str, bytes, int
    or float) raises `redis.exceptions.DataError`, as in the Python packer."""
    if _PACKER is None or cls.__module__ == __name__:
        return cls
    key = f"{cls.__module__}.{cls.__qualname__}"
    if key not in _MADE:
        packer = _PACKER

        def pack_command(self: AbstractConnection, *args: Any) -> list[bytes]:
            name = args[0]
            if isinstance(name, str):
                # the serializer splits a str name on any whitespace (a tab, an empty name)
                one_word = " " not in name and name.isprintable() and name != ""
            else:
                one_word = isinstance(name, bytes) and b" " not in name
            if one_word:
                try:
                    return [_pack_command(args)]
                except TypeError:
                    pass  # an argument hiredis does not take: the serializer's conversions
            packed: list[bytes] = packer.pack(*args)
            return packed

        _MADE[key] = type(cls.__name__, (cls,), {"pack_command": pack_command})
    return _MADE[key]
