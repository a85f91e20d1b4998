"""Read models: standings at any seq, the player ledger, series, timeline, dispute, exports."""
