"""Rule errors. Process and protocol trouble has its own error family outside the engine."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that the rules do not allow at this point. ``rule`` names the RULES.md section."""

    def __init__(self, message: str, rule: str, action: object = None):
        super().__init__(f"{message} ({rule})")
        self.rule = rule
        self.action = action
        self.reason = message
