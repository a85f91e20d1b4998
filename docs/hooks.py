"""MkDocs hook: the reference pages generated from what the code commits or declares.

Four pages are written at build time, never committed, so they cannot drift:

- ``integrating/event-catalogue.md`` from the JSON Schemas in ``contracts/schemas/``
  (``make schemas`` writes them from the pydantic contracts);
- ``reference/http-api.md`` from ``contracts/openapi.json`` (what every app serves);
- ``reference/cli-help.md`` from the ``scoreledger`` command's own options and help texts;
- ``integrating/rule-catalogue.md`` from the code that raises each rule id
  (``services.rules.pages``, the ids of ``contracts/rules.json``).

A missing or unreadable input fails the build (``make docs`` runs ``mkdocs build --strict``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer.main
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "contracts" / "schemas"
OPENAPI = ROOT / "contracts" / "openapi.json"
# The envelope unions: every type they join has a page section of its own.
UNIONS = {"event.json", "league.event.json", "tournament.event.json"}
FAMILIES = {
    "game": "Common to every game",
    "trickerion": "Trickerion",
    "penumbra": "Penumbra",
    "tournament": "Tournaments",
    "league": "Leagues",
}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the three generated pages to the site's files."""
    pages = {
        "integrating/event-catalogue.md": event_catalogue(),
        "reference/http-api.md": http_api(),
        "reference/cli-help.md": cli_help(),
        "integrating/rule-catalogue.md": rule_catalogue(),
    }
    for uri, text in pages.items():
        files.append(File.generated(config, uri, content=text))
    return files


def rule_catalogue() -> str:
    """The rule catalogue page: every rule id by route and by event type, from the code."""
    from services.rules.pages import catalogue_page

    return catalogue_page()


def _cell(text: object) -> str:
    """One markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _type_of(schema: dict[str, Any]) -> str:
    """A short type for a JSON Schema node: ``integer 0..30``, ``string``, ``A | null``."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " | ".join(_type_of(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " \\| ".join(f"`{v}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = str(schema.get("type", "any"))
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_type_of(schema['items'])}"
    bounds = [
        f"{k} {schema[k]}"
        for k in ("minimum", "maximum", "minLength", "maxLength", "maxItems")
        if k in schema
    ]
    return kind + (f" ({', '.join(bounds)})" if bounds else "")


def _fields(schema: dict[str, Any]) -> list[str]:
    """The rows of a field table for an object schema."""
    required = set(schema.get("required", []))
    rows = ["| field | type | required | description |", "|---|---|---|---|"]
    for name, node in schema.get("properties", {}).items():
        note = node.get("description", "")
        if "default" in node:
            note = f"default `{json.dumps(node['default'])}`. {note}"
        rows.append(
            f"| `{name}` | {_cell(_type_of(node))} | {'yes' if name in required else ''} "
            f"| {_cell(note)} |"
        )
    return rows


def event_catalogue() -> str:
    """Every event type of every stream, with its payload's fields, from the JSON Schemas."""
    out = [
        "# Event catalogue",
        "",
        "Generated at build time from the JSON Schemas in `contracts/schemas/` (written by",
        "`make schemas` from the pydantic contracts). Every type shares the envelope of",
        "[the event format](events.md); a game event carries `game_id`, a tournament's",
        "`tournament_id`, a league's `league_id`. Integers are JSON integers: `2`, never `2.0`,",
        '`true` or `"2"` (the schemas cannot say so; the service refuses them).',
    ]
    by_family: dict[str, list[Path]] = {}
    for path in sorted(SCHEMAS.glob("*.json")):
        if path.name not in UNIONS:
            by_family.setdefault(path.name.split(".", 1)[0], []).append(path)
    for family, title in FAMILIES.items():
        out += ["", f"## {title}"]
        for path in by_family.pop(family, []):
            schema = json.loads(path.read_text(encoding="utf-8"))
            ref = schema["properties"]["payload"]["$ref"].rsplit("/", 1)[-1]
            payload = schema["$defs"][ref]
            out += ["", f"### `{path.stem}`", "", payload.get("description", "").strip(), ""]
            out += [f"Payload `{ref}` (schema `contracts/schemas/{path.name}`):", ""]
            out += _fields(payload)
    if by_family:  # a new stream kind must be given a section here
        raise ValueError(f"event families without a catalogue section: {sorted(by_family)}")
    return "\n".join(out) + "\n"


def http_api() -> str:
    """Every route of ``contracts/openapi.json``: parameters and every status it answers."""
    spec = json.loads(OPENAPI.read_text(encoding="utf-8"))
    out = [
        "# HTTP API reference",
        "",
        "Generated at build time from `contracts/openapi.json`, the document every app serves",
        "at `GET /openapi.json` (rendered at `/docs`). What the routes are for, with examples:",
        "[HTTP](../integrating/http.md); errors: [one error style](../integrating/errors.md).",
    ]
    for route, item in spec["paths"].items():
        for method, op in item.items():
            out += ["", f"## `{method.upper()} {route}`", ""]
            out += [op.get("description") or op.get("summary", ""), ""]
            shared = spec.get("components", {}).get("parameters", {})
            params = [
                shared[p["$ref"].rsplit("/", 1)[1]] if "$ref" in p else p
                for p in op.get("parameters", [])
            ]  # a shared one is a `$ref`
            if params:
                out += ["| parameter | in | type | required |", "|---|---|---|---|"]
                out += [
                    f"| `{p['name']}` | {p['in']} | {_cell(_type_of(p.get('schema', {})))} "
                    f"| {'yes' if p.get('required') else ''} |"
                    for p in params
                ]
                out.append("")
            body = op.get("requestBody", {}).get("content", {})
            if body:
                out += [f"Body: {', '.join(f'`{m}`' for m in body)}.", ""]
            out += ["| status | meaning | content |", "|---|---|---|"]
            for status, answer in op.get("responses", {}).items():
                kinds = ", ".join(f"`{m}`" for m in answer.get("content", {}))
                out.append(f"| {status} | {_cell(answer.get('description', ''))} | {kinds} |")
    out += [
        "",
        "## Webhooks",
        "",
        "What the webhooks role sends ([Webhooks](../integrating/webhooks.md)):",
        "",
    ]
    for name, item in spec.get("webhooks", {}).items():
        for op in item.values():
            out.append(f"- `{name}`: {_cell(op.get('description') or op.get('summary', ''))}")
    return "\n".join(out) + "\n"


def _command(cmd: Any, path: str, out: list[str]) -> None:
    """Append one command's section (and its subcommands', depth first).

    ``cmd`` is a click command as Typer builds it (Typer vendors its own click, so this
    reads the attributes both share rather than checking classes).
    """
    out += ["", f"## `{path}`", "", (cmd.help or "").strip(), ""]
    params = [p for p in cmd.params if p.name not in ("install_completion", "show_completion")]
    if params:
        out += ["| argument or option | default | help |", "|---|---|---|"]
        for p in params:
            names = ", ".join(p.opts + p.secondary_opts)
            if p.param_type_name == "argument":
                names = p.human_readable_name.upper()
            default = "" if p.default is None or callable(p.default) else f"`{p.default}`"
            out.append(f"| `{names}` | {_cell(default)} | {_cell(getattr(p, 'help', '') or '')} |")
    for name in sorted(getattr(cmd, "commands", {})):
        _command(cmd.commands[name], f"{path} {name}", out)


def cli_help() -> str:
    """Every ``scoreledger`` command with its arguments, options and help, from the code."""
    from services.cli.main import app

    out = [
        "# CLI reference",
        "",
        "Generated at build time from the `scoreledger` command itself (the same texts as",
        "`scoreledger COMMAND --help`). What the commands are for: [Command line](cli.md).",
    ]
    _command(typer.main.get_command(app), "scoreledger", out)
    return "\n".join(out) + "\n"
