"""Typed domain errors: an event that breaks a rule is rejected and the state is unchanged."""

from __future__ import annotations


class RuleViolation(ValueError):
    """An event breaks a rule of the game or of the log.

    Attributes:
        rule: a stable rule id, e.g. `trickerion.advertise.once_per_turn` or `log.seq_gap`.
        field: the event field at fault, dotted (`payload.trick_id`), or None.
        message: a sentence a referee can read.
        index: the 0-based position in a written batch of the event at fault, set by the use
            case that checked the batch (None: not known, or not a batch).
    """

    def __init__(self, rule: str, message: str, field: str | None = None) -> None:
        self.rule = rule
        self.field = field
        self.message = message
        self.index: int | None = None
        where = f" [{field}]" if field else ""
        super().__init__(f"{rule}{where}: {message}")

    def to_dict(self) -> dict[str, str | None]:
        """`{"rule", "field", "message"}` for API error bodies and dead letters."""
        return {"rule": self.rule, "field": self.field, "message": self.message}
