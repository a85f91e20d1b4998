"""What an omitted `schema_version` means, read from the committed table
`contracts/omitted_versions.json` (docs/versioning.md#what-an-omitted-schema_version-means).

The table says, per event type, which version an event that leaves `schema_version` out is
read as. It only grows: when a type gets a version 2, its entry stays 1, so a table that never
sent the field keeps being read as it meant; the new version has to be named. `contracts.events`
makes `schema_version` required on the envelope of a type whose table entry is older than its
current version (so the one-pass parse cannot fill in the current one) and fills the table's
version in before upcasting.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

TABLE = "omitted_versions.json"


@cache
def omitted_versions() -> dict[str, int]:
    """The table: wire type -> the version an omitted `schema_version` means."""
    text = files("contracts").joinpath(TABLE).read_text(encoding="utf-8")
    table: dict[str, int] = json.loads(text)["omitted_means"]
    return table


def omitted_version(type_name: str, current: int) -> int:
    """The version an event of `type_name` that omits `schema_version` is read as: the table's
    entry, or `current` for a type the table does not list (a game registered at run time,
    outside the published contracts)."""
    return omitted_versions().get(type_name, current)
