"""Low-position elimination (积分编排赛 + 低位淘汰赛, 第二十九条), pure: no database.

A Swiss event may cut its field between units (单元): after round ``after_round`` only the
``keep`` best-placed entries play on; the others are *eliminated after that round* and keep
their place below every entry still playing. The plan is stored as
``Tournament.cuts = [{"after_round": 3, "keep": 12}, ...]``.

* :func:`parse_plan` reads an organiser's text (``"3:12, 5:6"``: after round 3 keep 12, after
  round 5 keep 6) or the API's list of objects into :class:`Cut` s;
* :func:`check_plan` is the one check of a plan against the event (Swiss only, rounds strictly
  increasing and before the last round, fewer entries kept at each cut, at least 2), every
  problem at once;
* :func:`cut_line` splits the ranked entries still playing into those kept and those out;
* :func:`rank_with_cuts` places eliminated entries below those still playing, those out later
  above those out earlier, each group in its standings order.

The messages are translated (``gettext``), the only Django this module uses.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

#: Most cuts of one event, and most entries a cut may keep (every number bounded).
MAX_CUTS = 10
MAX_KEEP = 1000


@dataclass(frozen=True, order=True)
class Cut:
    """After round ``after_round`` only the ``keep`` best-placed entries play on."""

    after_round: int
    keep: int

    def to_json(self) -> dict[str, int]:
        """The stored form."""
        return {"after_round": self.after_round, "keep": self.keep}


class PlanError(ValueError):
    """A plan that cannot be read or does not fit the event: ``problems`` are every
    translated sentence, in order."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


_PART = re.compile(r"^\s*(\d{1,4})\s*[:：=]\s*(\d{1,4})\s*$")
_SEPARATORS = re.compile(r"[,，;；、\n]+")


def _whole(value: Any) -> int | None:
    """``value`` as a whole number (a boolean or a fraction is not one)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def parse_plan(value: Any) -> list[Cut]:
    """The cuts of ``value``: empty (``None``, ``""``, ``[]``), a text of ``round:keep`` parts
    separated by commas (``"3:12, 5:6"``; full-width ``：`` and ``，`` too), or a list of
    ``{"after_round": n, "keep": m}`` objects. Raises :class:`PlanError` naming every part that
    cannot be read; the cuts are returned as given (their order is :func:`check_plan`'s)."""
    if value is None or value == "" or value == []:
        return []
    problems: list[str] = []
    cuts: list[Cut] = []
    if isinstance(value, str):
        for part in _SEPARATORS.split(value.strip()):
            if not part.strip():
                continue
            found = _PART.match(part)
            if found is None:
                problems.append(
                    _(
                        "“%(part)s” is not a cut: write the round, a colon and the entries "
                        "kept, e.g. 3:12."
                    )
                    % {"part": part.strip()[:20]}
                )
                continue
            cuts.append(Cut(int(found.group(1)), int(found.group(2))))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value, start=1):
            after = _whole(item.get("after_round")) if isinstance(item, dict) else None
            keep = _whole(item.get("keep")) if isinstance(item, dict) else None
            extra = set(item) - {"after_round", "keep"} if isinstance(item, dict) else set()
            if after is None or keep is None or extra:
                problems.append(
                    _(
                        "Cut %(n)d is not read: give after_round and keep, both whole "
                        "numbers, and nothing else."
                    )
                    % {"n": index}
                )
                continue
            cuts.append(Cut(after, keep))
    else:
        problems.append(
            _("Give the cuts as a text such as 3:12, 5:6 or as a list of after_round and keep.")
        )
    if problems:
        raise PlanError(problems)
    return cuts


def check_plan(
    cuts: Sequence[Cut],
    *,
    swiss: bool,
    rounds_planned: int,
    made: Sequence[Cut] = (),
    rounds_paired: int = 0,
) -> list[str]:
    """Every problem of the plan ``cuts`` for an event (``swiss``: its format is Swiss) of
    ``rounds_planned`` rounds, as translated sentences (none: the plan is good). A cut comes
    after round 1 to ``rounds_planned - 1`` (after the last round the event is over), each
    after a later round than the one before, each keeping at least 2 and fewer entries than
    the one before (an odd number is allowed: one entry has a bye each round). Once rounds
    have been paired, the cuts already made (``made``: those after a round before
    ``rounds_paired``) cannot change, and no new cut can come before that round."""
    if not cuts:
        if made:
            return [_made_message(made)]
        return []
    problems: list[str] = []
    if not swiss:
        problems.append(_("Low-position elimination is only for Swiss events."))
    if len(cuts) > MAX_CUTS:
        problems.append(_("At most %(n)d cuts.") % {"n": MAX_CUTS})
    last = max(rounds_planned - 1, 0)
    previous: Cut | None = None
    for n, cut in enumerate(cuts, start=1):
        if not 1 <= cut.after_round <= last:
            if last == 0:
                problems.append(_("A cut needs at least two rounds: there is none after the last."))
            else:
                problems.append(
                    _("Cut %(n)d: the round is from 1 to %(last)d (none after the last round).")
                    % {"n": n, "last": last}
                )
        if not 2 <= cut.keep <= MAX_KEEP:
            problems.append(
                _("Cut %(n)d keeps %(keep)d: keep from 2 to %(max)d entries.")
                % {"n": n, "keep": cut.keep, "max": MAX_KEEP}
            )
        if previous is not None:
            if cut.after_round <= previous.after_round:
                problems.append(
                    _(
                        "Cut %(n)d: after round %(r)d comes too early; the cut before is after round %(p)d."
                    )
                    % {"n": n, "r": cut.after_round, "p": previous.after_round}
                )
            if cut.keep >= previous.keep:
                problems.append(
                    _("Cut %(n)d keeps %(keep)d: keep fewer than the cut before (%(p)d).")
                    % {"n": n, "keep": cut.keep, "p": previous.keep}
                )
        previous = cut
    fixed = [c for c in cuts if c.after_round < rounds_paired]
    if rounds_paired and list(fixed) != list(made):
        problems.append(_made_message(made, rounds_paired))
    return problems


def _made_message(made: Sequence[Cut], rounds_paired: int = 0) -> str:
    if made:
        return _("The cuts already made (%(cuts)s) cannot change.") % {"cuts": format_plan(made)}
    return _("Round %(n)d is already paired: a new cut comes after round %(n)d or later.") % {
        "n": rounds_paired
    }


def made_cuts(cuts: Sequence[Cut], rounds_paired: int) -> list[Cut]:
    """The cuts of a plan already made once ``rounds_paired`` rounds exist (a cut after round
    ``r`` is made when round ``r + 1`` is paired)."""
    return [c for c in cuts if c.after_round < rounds_paired]


def format_plan(cuts: Iterable[Cut]) -> str:
    """The plan as an organiser writes it: ``"3:12, 5:6"``."""
    return ", ".join(f"{c.after_round}:{c.keep}" for c in cuts)


def describe_plan(cuts: Iterable[Cut]) -> str:
    """The plan in words, in the reader's language: "after round 3 the best 12 play on;
    after round 5 the best 6 play on" (empty for no plan)."""
    return pgettext("list separator", "; ").join(
        _("after round %(r)d the best %(k)d play on") % {"r": c.after_round, "k": c.keep}
        for c in cuts
    )


def cut_after(cuts: Sequence[Cut], round_number: int) -> Cut | None:
    """The cut made after round ``round_number``, if the plan has one."""
    return next((c for c in cuts if c.after_round == round_number), None)


def cut_line(ranked: Sequence[int], keep: int) -> tuple[list[int], list[int]]:
    """The entries still playing, best first (ties at the line already decided: see
    :func:`ranked_for_cut`), split into the ``keep`` kept and the others, out. Exactly
    ``min(keep, len(ranked))`` are kept."""
    if len(set(ranked)) != len(ranked):
        raise ValueError("an entry appears twice")
    return list(ranked[:keep]), list(ranked[keep:])


class _Placed(Protocol):
    unit: int
    place: int


def ranked_for_cut(
    rows: Sequence[_Placed], playing: Iterable[int], seeding: Sequence[int]
) -> list[int]:
    """The entries of ``playing`` in the order of the standings ``rows``; entries sharing a
    place (equal on every tie-break) in seeding order, the draw made in advance that
    第二十七条四.5 allows, so a cut always keeps the number it says."""
    wanted = set(playing)
    position = {u: i for i, u in enumerate(seeding)}
    chosen = [r for r in rows if r.unit in wanted]
    chosen.sort(key=lambda r: (r.place, position.get(r.unit, len(position)), r.unit))
    return [r.unit for r in chosen]


R = TypeVar("R", bound=_Placed)


def rank_with_cuts(rows: Sequence[R], out_after: Mapping[int, int]) -> list[R]:
    """The standings ``rows`` (in order, with places) with the eliminated entries
    (``out_after[unit]``: the round after which it was cut) below every entry still playing,
    grouped by that round, later first, each group in its standings order. Places are
    renumbered: a row shares the place of the row before it only when both shared one in
    ``rows`` and are in the same group. Returns new rows (``rows`` are not changed)."""
    playing = [r for r in rows if r.unit not in out_after]
    rounds = sorted({out_after[r.unit] for r in rows if r.unit in out_after}, reverse=True)
    groups = [playing] + [[r for r in rows if out_after.get(r.unit) == n] for n in rounds]
    out: list[R] = []
    for group in groups:
        for i, row in enumerate(group):
            if i and group[i - 1].place == row.place:
                place = out[-1].place
            else:
                place = len(out) + 1
            out.append(_with_place(row, place))
    return out


def _with_place(row: R, place: int) -> R:
    moved = copy.copy(row)
    moved.place = place
    return moved
