"""Which of the envelope's Python checks a decode runs (contracts/envelope.py): the native
decode must run none of them on a valid input (docs/profiles/decode-profiles.md)."""

from __future__ import annotations

import sys
from typing import Any


def envelope_calls(call: Any, *args: Any) -> tuple[list[str], Any]:
    """`call(*args)`'s answer and the qualified names of the contracts/envelope.py functions
    it ran, in call order (a profile hook set for the call only)."""
    seen: list[str] = []

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename.endswith("contracts/envelope.py"):
            seen.append(frame.f_code.co_qualname)

    sys.setprofile(profile)
    try:
        got = call(*args)
    finally:
        sys.setprofile(None)
    return seen, got
