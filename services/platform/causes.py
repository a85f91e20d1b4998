"""An exception and what led to it, as Python chains them (`__cause__`, else `__context__`).

Both the Redis adapter (is an authentication failure somewhere in the chain?) and the command
line's start-up report (which fault to name) read a chain this way.
"""

from __future__ import annotations


def causes(error: BaseException) -> list[BaseException]:
    """`error` and its causes/contexts, outermost first; each exception once (a cycle ends it)."""
    chain: list[BaseException] = []
    seen: BaseException | None = error
    while seen is not None and seen not in chain:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    return chain
