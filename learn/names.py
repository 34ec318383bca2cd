"""Names the learning pages share with the table: seats seen from the learner, team levels."""

from __future__ import annotations

from matches.messages import TABLE_WORDS
from matches.selectors import level_names

#: Seat names seen from seat 0, as the table names them (你 / 下家 / 对家 / 上家).
SEAT_WORDS = ("you", "right", "partner", "left")


def seat_label(seat: int, seats: int = 4) -> str:
    """The table's name of ``seat`` as seen from seat 0 (the learner)."""
    if seats == 2:
        return str(TABLE_WORDS["you" if seat == 0 else "opponent"])
    return str(TABLE_WORDS[SEAT_WORDS[seat % 4]])


def level_label(variant: str, index: int) -> str:
    """A team level index as the table shows it (Bao 2's second climb marked with its round)."""
    names = level_names(variant)
    if not 0 <= index < len(names):
        return str(index)
    rank, round_no = names[index]
    if round_no > 1:
        return str(TABLE_WORDS["level_round"]) % {"rank": rank, "n": round_no}
    return rank
