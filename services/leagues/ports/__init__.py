"""The league ports: the league log and the tournament-to-leagues index."""
