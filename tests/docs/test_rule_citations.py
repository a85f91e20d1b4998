"""Every rule citation the service can send or render names a docs page of this repository
and a heading on it (docs/architecture/adding-a-game.md#rule-citations): the games'
citation constants, every ledger entry, note and tie-break text of the example games, the
`score --json` output, every citation written in the code's strings and docstrings, the card
data's `source` fields and the rules coverage audit. No tracked file names notes kept outside
this repository (a research folder, a shared rules folder)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from domain.penumbra import categories as penumbra_rules
from domain.penumbra import turns as penumbra_turns
from domain.standings import standings
from domain.trickerion import categories as trickerion_rules
from services.cli.main import app
from services.cli.offline import fold_lines, parse_lines
from tests.docs.anchors import CITATION, ROOT, broken, heading_ids, slugify

EXAMPLES = sorted((ROOT / "contracts" / "examples").glob("*.jsonl"))
NOT_CITATIONS = frozenset({"correction"})
"""Ledger rules that are not rules text: a referee's correction is the referee's act."""
CODE = ("domain", "services", "contracts")


def _unresolved(texts: list[str]) -> list[str]:
    """Each problem with the citations in `texts`: a `.md` named outside the citation form,
    or a citation whose page or heading does not exist."""
    problems = []
    for text in texts:
        cited = CITATION.findall(text)
        problems += [why for c in cited if (why := broken(c))]
        stray = CITATION.sub("", text)
        if ".md" in stray or "§" in stray:
            problems.append(f"not a docs citation: {text!r}")
    return problems


def test_the_heading_parser_matches_the_toc_slugs() -> None:
    assert slugify("Dahlgaard's Academy") == "dahlgaards-academy"
    assert slugify("Émile -- and  Co.") == "emile-and-co"
    page = "# A\n## Ties {#winner}\n```\n## not a heading\n```\n## Why *this*\n## Why this\n"
    assert heading_ids(page) == {"a", "winner", "why-this", "why-this_1"}


def test_the_parser_agrees_with_the_markdown_build() -> None:
    """Where the docs tools are installed (`make docs`), the real `toc` gives the same ids."""
    markdown = pytest.importorskip("markdown")
    for page in sorted((ROOT / "docs" / "rules").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        md = markdown.Markdown(extensions=["attr_list", "toc", "tables", "admonition"])
        md.convert(text)

        def ids(tokens: list[dict]) -> set[str]:
            return {t["id"] for t in tokens} | {i for t in tokens for i in ids(t["children"])}

        assert heading_ids(text) == ids(md.toc_tokens), page.name


def test_a_missing_heading_or_page_is_caught() -> None:
    assert broken("docs/rules/trickerion.md#advertise") is None
    assert broken("docs/rules/trickerion.md#no-such-rule") is not None
    assert broken("docs/rules/no-such-game.md") is not None
    assert _unresolved(["trickerion-scoring.md#advertise", "notes/penumbra.md §6"])


@pytest.mark.parametrize("module", [trickerion_rules, penumbra_rules])
def test_every_citation_constant_resolves(module: object) -> None:
    citations = module.CITATIONS  # type: ignore[attr-defined]
    assert citations
    assert all(CITATION.fullmatch(c) and "#" in c for c in citations), citations
    assert _unresolved(list(citations)) == []


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_ledger_entry_of_the_example_games_cites_a_heading(path: Path) -> None:
    with path.open(encoding="utf-8") as handle:
        state = fold_lines(parse_lines(handle))
    assert state.ledger
    rules = {e.rule for e in state.ledger} - NOT_CITATIONS
    assert all(CITATION.fullmatch(r) and "#" in r for r in rules), rules
    texts = [*rules, *(e.note for e in state.ledger)]
    texts.append(standings(state).model_dump_json())
    assert _unresolved(texts) == []


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_score_json_cites_only_docs_headings(path: Path) -> None:
    result = CliRunner().invoke(app, ["score", str(path), "--json"])
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)
    assert _unresolved([result.stdout]) == []


def test_a_shared_place_cites_the_winner_heading() -> None:
    path = ROOT / "contracts" / "examples" / "penumbra-3p.jsonl"
    with path.open(encoding="utf-8") as handle:
        state = fold_lines(parse_lines(handle))
    tied = [p.player_id for p in state.players][:2]
    winners, decision = penumbra_turns.tie_break(state.rules, tied)
    assert winners == tied
    assert penumbra_rules.TIE_BREAK in decision
    assert _unresolved([decision]) == []


def _strings(path: Path) -> list[str]:
    """Every string constant of a module (docstrings and f-string parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def test_every_docs_citation_in_the_code_resolves() -> None:
    """Refusal messages, notes and docstrings: a `docs/...md#anchor` they name exists."""
    problems = []
    for folder in CODE:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for text in _strings(path):
                cited = CITATION.findall(text)
                problems += [
                    f"{path.relative_to(ROOT)}: {why}" for c in cited if (why := broken(c))
                ]
    assert problems == []


def test_the_published_contracts_cite_only_docs_headings() -> None:
    """The OpenAPI and AsyncAPI documents and the JSON Schemas the service publishes name
    rules pages only as `docs/...md#heading` citations that exist."""
    published = [ROOT / "contracts" / "openapi.json", ROOT / "contracts" / "asyncapi.yaml"]
    published += sorted((ROOT / "contracts" / "schemas").glob("*.json"))
    problems = []
    for path in published:
        text = path.read_text(encoding="utf-8")
        problems += [f"{path.name}: {why}" for c in CITATION.findall(text) if (why := broken(c))]
        if ".md" in CITATION.sub("", text):
            problems.append(f"{path.name}: names a .md outside the citation form")
    assert problems == []


NOTE_LABELS = re.compile(r"\bresearch\b|\bEC-\d+\b|\bS\d+\b|\brules lines? \d", re.IGNORECASE)
"""Labels of notes kept outside this repository (a research file, its `EC-<n>` edge cases and
`S<n>` sources, its numbered rules lines): a published description cites the docs instead."""


def _descriptions(node: object) -> list[str]:
    """Every `description` string of a parsed JSON / YAML document, at any depth."""
    if isinstance(node, dict):
        found = [v for k, v in node.items() if k == "description" and isinstance(v, str)]
        return found + [d for v in node.values() for d in _descriptions(v)]
    if isinstance(node, list):
        return [d for v in node for d in _descriptions(v)]
    return []


def test_the_published_descriptions_name_no_outside_notes() -> None:
    """What integrators read (schema, OpenAPI and AsyncAPI descriptions) cites this repository's
    docs, not the labels of notes they cannot open."""
    contracts = ROOT / "contracts"
    documents = {
        p.name: json.loads(p.read_text(encoding="utf-8"))
        for p in [contracts / "openapi.json", *sorted((contracts / "schemas").glob("*.json"))]
    }
    documents["asyncapi.yaml"] = yaml.safe_load(
        (contracts / "asyncapi.yaml").read_text(encoding="utf-8")
    )
    assert any(_descriptions(d) for d in documents.values())
    assert NOTE_LABELS.search("a tie (research §6, EC-24), S1")
    problems = [
        f"{name}: {text!r}"
        for name, document in documents.items()
        for text in _descriptions(document)
        if NOTE_LABELS.search(text)
    ]
    assert problems == []


def test_the_card_data_sources_cite_docs_headings() -> None:
    """Each catalogue file's `source` says where its values came from by a rules-page heading
    (and names no other `.md`)."""
    files = sorted((ROOT / "contracts" / "catalogue").rglob("*.json"))
    sources = [json.loads(p.read_text(encoding="utf-8"))["source"] for p in files]
    assert sources
    assert all(CITATION.match(s) for s in sources), sources
    assert _unresolved(sources) == []


def test_the_rules_coverage_audit_cites_docs_headings() -> None:
    text = (ROOT / "tests" / "domain" / "RULES_COVERAGE.md").read_text(encoding="utf-8")
    cited = CITATION.findall(text)
    assert len([c for c in cited if "#" in c]) > 40
    assert [why for c in cited if (why := broken(c))] == []


OUTSIDE_NOTES = re.compile(r"research[/]|/work[/]shared|shared[/](?:rules|research)\b")
"""Paths of notes kept outside this repository (written so this file does not match itself)."""
NOT_SCANNED = ("uv.lock",)
"""Tracked files not read: the lock file's package hashes and names are not prose."""


def _tracked() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return [ROOT / name for name in listed.split("\0") if name and name not in NOT_SCANNED]


def test_no_tracked_file_cites_notes_outside_the_repository() -> None:
    """Code, contracts, deploy files, tests and docs cite this repository's pages only: a
    reader of a fresh clone can open every source named."""
    assert OUTSIDE_NOTES.search("see " + "research" + "/tech.md")
    assert OUTSIDE_NOTES.search("/work" + "/shared" + "/rules/x.md")
    assert not OUTSIDE_NOTES.search("docs/rules/trickerion.md#card-data")
    found = []
    for path in _tracked():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary (screenshots), or deleted in the work tree
        found += [
            f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}"
            for n, line in enumerate(text.splitlines(), 1)
            if OUTSIDE_NOTES.search(line)
        ]
    assert found == []


ISSUE_NUMBER = re.compile(r"\bissues?\s+#?[0-9]+", re.IGNORECASE)
"""An issue tracker's number: the code says why itself, or cites a page of the docs."""


def test_no_python_file_cites_an_issue_number() -> None:
    assert ISSUE_NUMBER.search("see " + "issue" + " 30's row")
    assert ISSUE_NUMBER.search("Issues" + " #12")
    assert not ISSUE_NUMBER.search("the issue's tree, docs/benchmarks.md")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in _tracked()
        if path.suffix == ".py" and path.exists()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE_NUMBER.search(line)
    ]
    assert found == []
