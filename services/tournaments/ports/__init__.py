"""The tournament ports: the tournament log and the approval schedule."""
