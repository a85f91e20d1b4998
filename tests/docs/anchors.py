"""The heading anchors of this repository's docs pages, found the way MkDocs finds them.

A rule citation names a page and a heading: `docs/rules/trickerion.md#advertise` (form:
docs/architecture/adding-a-game.md#rule-citations). The docs build with Python-Markdown's
`toc` and `attr_list` extensions (mkdocs.yml), so a heading's anchor is its explicit
`{#id}` or else `toc`'s slug of its text (NFKD to ASCII, drop what is not a word character,
space or hyphen, lower case, runs of spaces and hyphens to one hyphen), a repeated slug
taking `_1`, `_2`. Headings inside fenced code blocks are not headings.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CITATION = re.compile(r"docs/[\w./-]+?\.md(?:#[\w-]+)?")
"""A citation of a docs page, with or without a heading anchor."""

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_EXPLICIT_ID = re.compile(r"\s*\{[:\s]*#([\w-]+)[^}]*\}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE = re.compile(r"`([^`]*)`|\[([^\]]*)\]\([^)]*\)|\*|(?<!\w)_|_(?!\w)")
"""Inline markup a heading's anchor drops: a code span or a link keeps its text (underscores in
code stay: `schema_version`), emphasis markers go (an underscore inside a word is not one)."""


def slugify(text: str) -> str:
    """Python-Markdown `toc.slugify(text, "-")`: the anchor of a heading without `{#id}`."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def heading_ids(markdown: str) -> set[str]:
    """The anchor of every heading of a Markdown page (explicit ids and slugs, deduplicated
    as `toc` does)."""
    ids: set[str] = set()
    fenced = False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match is None:
            continue
        text = match.group(2)
        explicit = _EXPLICIT_ID.search(text)
        if explicit:
            anchor = explicit.group(1)
        else:
            anchor = slugify(_INLINE.sub(lambda m: m.group(1) or m.group(2) or "", text))
            base, n = anchor, 0
            while anchor in ids:
                n += 1
                anchor = f"{base}_{n}"
        ids.add(anchor)
    return ids


@cache
def page_ids(page: str) -> frozenset[str] | None:
    """The heading anchors of the docs page at repository path `page` (None: no such page)."""
    path = ROOT / page
    if not path.is_file():
        return None
    return frozenset(heading_ids(path.read_text(encoding="utf-8")))


def broken(citation: str) -> str | None:
    """Why `citation` (`docs/<page>.md` or `docs/<page>.md#<anchor>`) does not resolve, or None."""
    page, _, anchor = citation.partition("#")
    ids = page_ids(page)
    if ids is None:
        return f"{citation}: no page {page}"
    if anchor and anchor not in ids:
        return f"{citation}: no heading #{anchor} on {page}"
    return None
