"""The frame of the server-rendered pages (the league's and the player's): doctype, head with
the shared stylesheets, the bar with the brand and the EN / RU links, then the page's `main`.
"""

from __future__ import annotations


def server_page(lang: str, title: str, langs: tuple[str, str], main: str) -> str:
    """A whole page: `title` (escaped by the caller) in the head, `langs` the EN and RU links'
    hrefs (already escaped for an attribute), `main` the page's body."""
    en, ru = langs
    return f"""<!doctype html>
<html lang="{lang}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{title} · scoreledger</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/static/css/style.css">
  <link rel="stylesheet" href="/static/css/tournament.css">
</head>
<body>
  <header class="bar">
    <a class="brand" href="/">scoreledger</a>
    <nav class="langs" aria-label="EN / RU"><a href="{en}" lang="en">EN</a> · <a href="{ru}" lang="ru">RU</a></nav>
  </header>
{main}
</body>
</html>
"""
