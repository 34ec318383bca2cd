"""Deal outcomes entered at a real table (the score sheet, 保2记分器): the refusal and the
readers of an outcome's fields that every variant's :meth:`~engine.deal.DealRules.table_deal`
shares. :class:`engine.match.TableMatch` applies what a variant's hook reads.

An outcome is plain JSON typed by a scorer; each reader checks one field and raises
:class:`OutcomeRefusal` naming it, so the sheet can point at the wrong input.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.actions import Refusal


class OutcomeRefusal(Refusal):
    """A deal outcome entered at a real table that the rules cannot accept; ``field`` names the
    part of the entry that is wrong (``finish``, ``bao2``, ``twos_left``, ...)."""

    def __init__(self, code: str, field: str, message: str) -> None:
        """Keep the field beside the reason code and message."""
        super().__init__(code, message)
        self.field = field


def refuse_unknown(outcome: dict[str, Any], known: Iterable[str]) -> None:
    """Refuse (``unknown_field``, naming the first in order) a field the variant has not."""
    extra = sorted(set(outcome) - set(known))
    if extra:
        raise OutcomeRefusal("unknown_field", extra[0], f"{extra[0]} is not part of this game")


def whole(value: object, field: str, low: int, high: int) -> int:
    """``value`` if it is a whole number in ``low..high`` (not a bool), else ``bad_number``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OutcomeRefusal("bad_number", field, f"{field} must be a whole number {low}..{high}")
    return value


def twos(value: Any, field: str) -> tuple[int, int]:
    """``{"twos": n, "red": r}`` (r of the n 2s are ♥2/♦2) → ``(n, r)``; ``None`` is none."""
    if value is None:
        return 0, 0
    if not isinstance(value, dict) or set(value) - {"twos", "red"}:
        raise OutcomeRefusal("bad_twos", field, f'{field} must be {{"twos": n, "red": r}}')
    n = whole(value.get("twos", 0), field, 0, 8)
    r = whole(value.get("red", 0), field, 0, 4)
    if r > n:
        raise OutcomeRefusal("bad_twos", field, f"{field}: more red 2s than 2s")
    return n, r


def finish_order(value: Any, seats: int) -> list[int]:
    """A finishing order: distinct seats ``0..seats-1`` (``bad_finish`` otherwise); it may
    leave seats out, the variant says how many it needs."""
    if not isinstance(value, list) or any(
        isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < seats for s in value
    ):
        raise OutcomeRefusal("bad_finish", "finish", "finish lists seats 0..3 in order")
    if len(set(value)) != len(value):
        raise OutcomeRefusal("bad_finish", "finish", "a seat appears twice in finish")
    return list(value)
