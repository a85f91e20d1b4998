"""The league doors: HTTP writes, reads, the league page and the player page."""
