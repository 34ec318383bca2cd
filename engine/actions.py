"""Actions (the moves of a deal or match) and refusals.

An :class:`Action` is a small immutable value, like ``chess.Move``. Its JSON form is the
conformance action format::

    {"seat": 0, "play": ["S3"], "type": "single"}     # a lead or follow
    {"seat": 1, "pass": true}                          # pass (不要)
    {"seat": 1, "immune": ["S9", ...]}                 # Bao 2 immune bomb, in the window only
    {"seat": 3, "tribute": "HR"}                       # 进贡
    {"seat": 0, "return": "S4"}                        # 还贡
    {"seat": 0, "choose": "solo"}                      # Red Two's choice (独打 / 投降 / 比炸弹)
    {"seat": 2, "ask": 1}                              # ask seat 1's card count (7..10 cards)
    {"time_up": true}                                  # match clock ran out (system action)
    {"sanction": "yellow", "target": 1}                # referee sanction against seat 1

Sanctions: ``revoke_initiative`` (剥夺主动出牌权), ``suspend_follow`` (本轮禁止压牌),
``yellow``, ``red``, ``forfeit`` (the target's team loses 23:0).

Every refused action raises :class:`Refusal` with a reason code. The conformance codes are
``wrong_phase``, ``not_your_turn``, ``not_in_hand``, ``invalid_combo``, ``needs_initiative``,
``does_not_beat``, ``must_lead``, ``invalid_tribute``, ``invalid_return`` (given in that priority
order when several apply). This engine adds, checked before all of those:

- ``invalid_action``: the input is not an action (not a dict, no or several kinds, bad seat,
  bad field types, an unknown sanction or choice);
- ``invalid_card``: a card string that is not in the suit-first notation;

and ``invalid_ask`` (asking a count that is not 7..10, or one's own), ``match_over`` (any
action after the match has ended).

A compact text form (:meth:`Action.to_compact`) keeps stored matches small: ``"1-"`` is a pass
by seat 1, ``"0S3S4S5S6H7s"`` is seat 0 playing those cards as a straight (seat digit, the
cards, one type letter); other actions are stored as compact JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.cards import InvalidCard, card_str, cards_str, parse_card

KINDS = ("play", "pass", "immune", "tribute", "return", "choose", "ask", "time_up", "sanction")
SANCTIONS = ("revoke_initiative", "suspend_follow", "yellow", "red", "forfeit")
CHOICES = ("solo", "surrender", "compare")

#: One letter per combo type, for the compact form.
TYPE_CODES = {
    "single": "1",
    "pair": "2",
    "triple": "3",
    "full_house": "f",
    "straight": "s",
    "pair_chain": "p",
    "triple_chain": "t",
    "bomb": "b",
    "straight_flush": "x",
    "joker_bomb": "j",
    "dragon": "d",
    "supreme": "u",
    "two_bomb": "w",
    "immune": "i",
    "chain_bomb": "c",
    "joker3": "y",
    "joker4": "z",
}
CODE_TYPES = {v: k for k, v in TYPE_CODES.items()}


class Refusal(Exception):  # noqa: N818  (the contract's name)
    """An action the rules refuse. ``code`` is a reason code, ``message`` says why in words.

    Whoever raises it has changed nothing.
    """

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message or code

    def to_json(self) -> dict[str, str]:
        """``{"code": ..., "message": ...}``."""
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True)
class Action:
    """One action. ``seat`` is the actor (``None`` for system/referee actions).

    ``cards`` holds the card ids of a play or immune bomb (sorted), or the one card of a
    tribute/return; ``type`` the declared combo type of a play; ``target`` the seat asked
    about or sanctioned; ``choice`` Red Two's choice; ``sanction`` the sanction name.
    """

    kind: str
    seat: int | None = None
    cards: tuple[int, ...] = ()
    type: str | None = None
    target: int | None = None
    choice: str | None = None
    sanction: str | None = None

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def play(cls, seat: int, cards: list[int] | tuple[int, ...], type: str) -> Action:
        """A play of ``cards`` declared as ``type``."""
        return cls("play", seat, tuple(sorted(cards)), type)

    @property
    def card(self) -> int:
        """The single card of a tribute or return."""
        return self.cards[0]

    # -- JSON ---------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The conformance JSON form (see the module docstring)."""
        k = self.kind
        if k == "play":
            return {"seat": self.seat, "play": cards_str(self.cards), "type": self.type}
        if k == "pass":
            return {"seat": self.seat, "pass": True}
        if k == "immune":
            return {"seat": self.seat, "immune": cards_str(self.cards)}
        if k in ("tribute", "return"):
            return {"seat": self.seat, k: card_str(self.cards[0])}
        if k == "choose":
            return {"seat": self.seat, "choose": self.choice}
        if k == "ask":
            return {"seat": self.seat, "ask": self.target}
        if k == "time_up":
            return {"time_up": True}
        return {"sanction": self.sanction, "target": self.target}

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Parse the JSON form; raise :class:`Refusal` (``invalid_action`` / ``invalid_card``)
        for anything malformed. Extra keys such as a vector's ``reject`` are ignored."""
        if isinstance(data, Action):
            return data
        if isinstance(data, str):
            return cls.from_compact(data)
        if not isinstance(data, dict):
            raise Refusal("invalid_action", "an action is a JSON object")
        kinds = [k for k in KINDS if k in data]
        if kinds == ["time_up"]:
            if data["time_up"] is not True:
                raise Refusal("invalid_action", "time_up must be true")
            return cls("time_up")
        if kinds == ["sanction"]:
            name, target = data["sanction"], data.get("target")
            if name not in SANCTIONS:
                raise Refusal("invalid_action", f"unknown sanction {name!r}")
            if not _is_seat(target):
                raise Refusal("invalid_action", "a sanction needs a target seat")
            return cls("sanction", target=target, sanction=name)
        if len(kinds) != 1:
            raise Refusal("invalid_action", "an action has exactly one of " + ", ".join(KINDS))
        kind = kinds[0]
        seat = data.get("seat")
        if not _is_seat(seat):
            raise Refusal("invalid_action", "seat must be a seat number")
        value = data[kind]
        if kind == "pass":
            if value is not True:
                raise Refusal("invalid_action", "pass must be true")
            return cls("pass", seat)
        if kind in ("play", "immune"):
            if not isinstance(value, list) or not value:
                raise Refusal("invalid_action", f"{kind} needs a non-empty list of cards")
            cards = tuple(sorted(_parse(c) for c in value))
            if kind == "immune":
                return cls("immune", seat, cards, "immune")
            type_ = data.get("type")
            if not isinstance(type_, str):
                raise Refusal("invalid_action", "a play needs a declared type")
            return cls("play", seat, cards, type_)
        if kind in ("tribute", "return"):
            return cls(kind, seat, (_parse(value),))
        if kind == "choose":
            if value not in CHOICES:
                raise Refusal("invalid_action", f"unknown choice {value!r}")
            return cls("choose", seat, choice=value)
        # ask
        if not _is_seat(value):
            raise Refusal("invalid_action", "ask needs the seat asked about")
        return cls("ask", seat, target=value)

    # -- compact text -------------------------------------------------------------------
    def to_compact(self) -> str:
        """Short text form for stored logs: ``"1-"`` (pass), ``"0S3S4S5S6H7s"`` (play),
        otherwise compact JSON. Inverse of :meth:`from_compact`."""
        if self.kind == "pass" and self.seat is not None and self.seat < 10:
            return f"{self.seat}-"
        if self.kind == "play" and self.seat is not None and self.seat < 10:
            code = TYPE_CODES.get(self.type or "")
            if code is not None:
                return f"{self.seat}{''.join(cards_str(self.cards))}{code}"
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_compact(cls, text: str) -> Action:
        """Parse :meth:`to_compact` output (raises :class:`Refusal` on bad input)."""
        if not isinstance(text, str) or len(text) < 2:
            raise Refusal("invalid_action", f"not an action: {text!r}")
        if text[0] == "{":
            try:
                data = json.loads(text)
            except ValueError:
                raise Refusal("invalid_action", f"not an action: {text!r}") from None
            return cls.from_json(data)
        if not text[0].isdigit():
            raise Refusal("invalid_action", f"not an action: {text!r}")
        seat = int(text[0])
        if text[1:] == "-":
            return cls("pass", seat)
        body, code = text[1:-1], text[-1]
        if code not in CODE_TYPES or len(body) % 2 or not body:
            raise Refusal("invalid_action", f"not an action: {text!r}")
        cards = tuple(sorted(_parse(body[i : i + 2]) for i in range(0, len(body), 2)))
        return cls("play", seat, cards, CODE_TYPES[code])

    def __str__(self) -> str:
        return self.to_compact()


_SANCTION_CODES = {
    "revoke_initiative": "r",
    "suspend_follow": "s",
    "yellow": "y",
    "red": "R",
    "forfeit": "f",
}
_CODE_SANCTIONS = {v: k for k, v in _SANCTION_CODES.items()}
_CHOICE_CODES = {"solo": "s", "surrender": "u", "compare": "c"}
_CODE_CHOICES = {v: k for k, v in _CHOICE_CODES.items()}
_SUITS = frozenset("SHCD")


def encode_stream(actions: Iterable[Action]) -> str:
    """Pack a match's actions into one string (the stored form of a match).

    Plays, passes and immune bombs are always made by the seat to act, so their seat is left
    out: ``-`` is a pass, ``S3S4S5S6H7s`` a play (the cards, then one type letter),
    ``I`` + cards + ``i`` an immune bomb. Other actions carry their seat: ``T0HR`` (tribute),
    ``R3S4`` (return), ``A21`` (seat 2 asks seat 1's count), ``K0s`` (Red Two's choice), ``!``
    (time up), ``Xy1`` (sanction, here a yellow card for seat 1). Anything else is stored as
    its compact JSON. :func:`decode_stream` reverses it.
    """
    out: list[str] = []
    for a in actions:
        k = a.kind
        if k == "pass":
            out.append("-")
        elif k == "play" and a.type in TYPE_CODES:
            out.append("".join(cards_str(a.cards)) + TYPE_CODES[a.type])
        elif k == "immune":
            out.append("I" + "".join(cards_str(a.cards)) + "i")
        elif k in ("tribute", "return") and a.seat is not None and a.seat < 10:
            out.append(("T" if k == "tribute" else "R") + str(a.seat) + card_str(a.cards[0]))
        elif k == "ask" and a.seat is not None and a.seat < 10 and a.target is not None:
            out.append(f"A{a.seat}{a.target}")
        elif k == "choose" and a.seat is not None and a.seat < 10:
            out.append(f"K{a.seat}{_CHOICE_CODES[a.choice or 'solo']}")
        elif k == "time_up":
            out.append("!")
        elif k == "sanction" and a.target is not None and a.target < 10:
            out.append(f"X{_SANCTION_CODES[a.sanction or 'yellow']}{a.target}")
        else:
            out.append(json.dumps(a.to_json(), separators=(",", ":")))
    return "".join(out)


def decode_stream(text: str) -> Iterator[Action]:
    """Unpack :func:`encode_stream`. Plays, passes and immune bombs come back with
    ``seat=None``: the seat to act when they are replayed. Raises :class:`Refusal`
    (``invalid_action``) on malformed text."""
    i, n = 0, len(text)
    decoder = json.JSONDecoder()
    try:
        while i < n:
            ch = text[i]
            if ch == "-":
                yield Action("pass")
                i += 1
            elif ch in _SUITS or ch == "I":
                j = i + 1 if ch == "I" else i
                cards = []
                while text[j] in _SUITS or text[j : j + 2] in ("SB", "HR"):
                    cards.append(parse_card(text[j : j + 2]))
                    j += 2
                code = text[j]
                if ch == "I":
                    yield Action("immune", None, tuple(sorted(cards)), "immune")
                else:
                    yield Action("play", None, tuple(sorted(cards)), CODE_TYPES[code])
                i = j + 1
            elif ch in "TR":
                kind = "tribute" if ch == "T" else "return"
                yield Action(kind, int(text[i + 1]), (parse_card(text[i + 2 : i + 4]),))
                i += 4
            elif ch == "A":
                yield Action("ask", int(text[i + 1]), target=int(text[i + 2]))
                i += 3
            elif ch == "K":
                yield Action("choose", int(text[i + 1]), choice=_CODE_CHOICES[text[i + 2]])
                i += 3
            elif ch == "!":
                yield Action("time_up")
                i += 1
            elif ch == "X":
                yield Action(
                    "sanction", target=int(text[i + 2]), sanction=_CODE_SANCTIONS[text[i + 1]]
                )
                i += 3
            elif ch == "{":
                data, i = decoder.raw_decode(text, i)
                yield Action.from_json(data)
            else:
                raise ValueError(ch)
    except (ValueError, KeyError, IndexError, InvalidCard):
        raise Refusal("invalid_action", f"malformed action stream at {i}") from None


def _is_seat(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10


def _parse(text: Any) -> int:
    try:
        return parse_card(text)
    except InvalidCard as exc:
        raise Refusal("invalid_card", str(exc)) from None


def parse_action(data: Any) -> Action:
    """An :class:`Action` from an Action, its JSON dict or its compact text."""
    return Action.from_json(data)
