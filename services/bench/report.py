"""The Markdown report: header lines, the table of figures, notes."""

from __future__ import annotations

from services.bench.stats import Figure, fmt


def render(head: dict[str, str], figures: list[Figure], notes: list[str]) -> str:
    """docs/benchmarks.md text: header, one table row per figure, then the notes."""
    lines = ["# Benchmarks", ""]
    lines += [f"- **{label}:** {value}" for label, value in head.items()]
    lines += [
        "",
        "Each figure: median and min-max over the repeats of this one run; the ratio is against a",
        "baseline measured in the same run (`cpu` = json.loads lines/s of the corpus, `xadd` =",
        "redis-benchmark XADD with 1 client and no pipeline on the same dedicated redis-server).",
        "",
        "| item | measure | median | min-max | unit | vs baseline | target | note |",
        "|---|---|---:|---|---|---|---|---|",
    ]
    for f in figures:
        lines.append(
            f"| {f.item} | {f.name} | {fmt(f.median)} | {f.spread} | {f.unit} | {f.ratio} | {f.verdict} "
            f"| {f.note.strip('; ')} |"
        )
    lines += ["", "## Notes", ""] + [f"- {n}" for n in notes] + [""]
    return "\n".join(lines)
