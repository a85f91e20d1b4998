"""Every route the README and the docs name in code (`` `POST /games/{id}/events` ``) is one the
service serves with that method: an HTTP API route of `contracts/openapi.json`, or a page the
app answers (a GET that is not the `http.404` / `http.405` problem of an unknown route). The
README named `POST /games`, which answers 405; docs/tournaments.md still did."""

from __future__ import annotations

import json
import re

import httpx

from services.bootstrap import Roles, build_app
from services.doors.query.openapi import COMMITTED
from services.platform.settings import ServiceSettings
from services.rules.ids import ROOT

NAMED = re.compile(r"`(GET|POST|PUT|DELETE|PATCH) (/[^`\s?]*)")
"""A route named in code: method, one space, the path (a query string is not part of it)."""
UNKNOWN_ROUTE = {"http.404", "http.405"}


def _shape(path: str) -> str:
    """The path with each `{name}` as `{}`, no trailing slash (`/games/{id}/` -> `/games/{}`)."""
    return re.sub(r"\{[^}]+\}", "{}", path.rstrip("/")) or "/"


def named(text: str) -> set[tuple[str, str]]:
    """(method, path shape) of every route `text` names in code."""
    return {(method, _shape(path)) for method, path in NAMED.findall(text)}


def api_routes() -> set[tuple[str, str]]:
    """(method, path shape) of every route of the committed HTTP API document."""
    paths = json.loads(COMMITTED.read_text(encoding="utf-8"))["paths"]
    return {(m.upper(), _shape(p)) for p, operations in paths.items() for m in operations}


async def unserved(routes: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """The routes of `routes` the full app does not serve: not in the API document, and (a GET
    of a page, asked with `x1` for each id) answered as an unknown route."""
    api = api_routes()
    app = build_app(Roles(inbox=False), ServiceSettings(_env_file=None))
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    missing = []
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as client:
        for method, path in sorted(routes - api):
            if method != "GET" or path.endswith("/live"):  # pages are GETs; a stream never ends
                missing.append((method, path))
                continue
            answer = await client.get(path.replace("{}", "x1"))
            is_problem = answer.headers.get("content-type") == "application/problem+json"
            if is_problem and answer.json().get("rule") in UNKNOWN_ROUTE:
                missing.append((method, path))
    return missing


async def test_every_route_the_docs_name_is_served() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    where: dict[tuple[str, str], list[str]] = {}
    for page in pages:
        for route in named(page.read_text(encoding="utf-8")):
            where.setdefault(route, []).append(page.relative_to(ROOT).as_posix())
    assert {route: where[route] for route in await unserved(set(where))} == {}


async def test_a_route_the_service_does_not_serve_is_caught() -> None:
    assert named("as `POST /games` does, or `GET /tv/{id}`") == {
        ("POST", "/games"),
        ("GET", "/tv/{}"),
    }
    missing = await unserved({("POST", "/games"), ("GET", "/no/such/page"), ("GET", "/tv/{}")})
    assert missing == [("GET", "/no/such/page"), ("POST", "/games")]
