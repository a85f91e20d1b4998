"""The pages' shared layout: Jinja2 templates that extend `templates/base.html` (doctype, head
with the charset, viewport, title, icon, stylesheets and the page's module script; the bar with
the brand and the EN / RU links), so each page template holds only its own parts.

A door keeps its page templates in its own `templates/` folder and serves them through a
`Pages` over that folder (the shared folder is searched after it: the layout and the not-found
page). The script-driven pages are static (one body per page, whatever the request), so each is
rendered once per process and served like a file: `ETag` and `Last-Modified` from its
templates. Source: docs/architecture/index.md (a feature's doors serve its own pages).
"""

from __future__ import annotations

from email.utils import formatdate
from hashlib import md5
from pathlib import Path
from typing import Any

from fastapi import Response
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

SHARED = Path(__file__).parent / "templates"
"""The layout (`base.html`) and the games' pages."""


class Pages:
    """The page templates of `folders` (searched in order, then the shared folder), autoescaped;
    a missing template raises `jinja2.TemplateNotFound`, an unset variable `UndefinedError`."""

    def __init__(self, *folders: Path) -> None:
        self._folders = [*folders, SHARED]
        self._env = Environment(
            loader=FileSystemLoader(self._folders),
            autoescape=select_autoescape(default=True),
            undefined=StrictUndefined,
            trim_blocks=True,  # a line holding only a tag leaves no blank line
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        self._static: dict[str, tuple[bytes, dict[str, str]]] = {}

    def render(self, name: str, **context: Any) -> str:
        """Template `name` rendered with `context` (a server-rendered page's body)."""
        return self._env.get_template(name).render(**context)

    def static(
        self, name: str, status_code: int = 200, headers: dict[str, str] | None = None
    ) -> Response:
        """Static page `name` as `text/html` with `status_code`, rendered on first use; `ETag`
        (the body's digest) and `Last-Modified` (the newest template it may extend) as a file has."""
        if name not in self._static:
            self._static[name] = self._rendered(name)
        body, cache = self._static[name]
        return Response(body, status_code, {**cache, **(headers or {})}, media_type="text/html")

    def _rendered(self, name: str) -> tuple[bytes, dict[str, str]]:
        body = self._env.get_template(name).render().encode("utf-8")
        modified = max(f.stat().st_mtime for d in self._folders for f in d.glob("*.html"))
        cache = {
            "etag": f'"{md5(body, usedforsecurity=False).hexdigest()}"',
            "last-modified": formatdate(modified, usegmt=True),
        }
        return body, cache
