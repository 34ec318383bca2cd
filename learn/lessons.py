"""The tutorial's lessons: data, positions the engine builds, and how an answer is judged.

A lesson is a real position (a :class:`engine.deal.Deal` built by :mod:`learn.positions`)
where the learner, at seat 0, must make a play or a choice. A *play* lesson sends the learner's
action through the engine: a refused action is wrong and explained by its refusal code; an
accepted one is right when the lesson's ``goal`` holds on the deal afterwards. A *choice*
lesson asks a question whose answer the engine computes (a settlement), so the right option is
never typed by hand. ``answer`` (the right answer) and ``wrong_answers`` let the tests play
every lesson both ways.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from engine.actions import Action, Refusal
from engine.cards import InvalidCard, parse_card
from engine.deal import Deal
from learn import positions as pos

#: The largest answer accepted (a hand never holds more cards).
MAX_CARDS = 27


@dataclass(frozen=True)
class Choice:
    """One option of a choice lesson: its key, its label, whether it is right."""

    key: str
    label: str
    right: bool


@dataclass(frozen=True)
class Lesson:
    """One lesson. ``build`` makes the position (play lessons); ``goal`` says whether the deal
    after an accepted action is what the lesson asked; ``choices`` gives a choice lesson's
    options (the engine decides which is right); ``facts`` fills the texts' ``%(name)s``;
    ``refusals`` explains a refused action by its code; ``rule`` is the guide's section
    (``game#anchor``)."""

    course: str
    slug: str
    title: Promise
    task: Promise
    right: Promise
    wrong: Promise
    rule: str
    answer: dict[str, Any]
    wrong_answers: Sequence[dict[str, Any]]
    build: Callable[[], Deal] | None = None
    goal: Callable[[Deal], bool] | None = None
    choices: Callable[[], list[Choice]] | None = None
    facts: Callable[[], dict[str, Any]] | None = None
    refusals: Mapping[str, Promise] = field(default_factory=dict)
    asks: Sequence[int] = ()

    @property
    def kind(self) -> str:
        """``play`` or ``choice``."""
        return "choice" if self.choices is not None else "play"

    def text(self, message: Promise) -> str:
        """A text of the lesson in the active language, its placeholders filled."""
        values = self.facts() if self.facts is not None else {}
        return str(message) % values if values else str(message)


@dataclass
class Outcome:
    """What the learner's answer did: right or not, the explanation, and when the engine refused
    it, the reason code (``refusal``)."""

    right: bool
    explanation: str
    refusal: str | None = None
    answer: dict[str, Any] = field(default_factory=dict)


class BadAnswer(ValueError):
    """The answer is not an answer (no cards, an unknown card, a choice that does not exist)."""


# --------------------------------------------------------------------------- judging
def clean_answer(lesson: Lesson, data: Mapping[str, Any]) -> dict[str, Any]:
    """The answer in ``data`` (a form's or a test's) as ``{"play": [cards]}``, ``{"pass":
    True}``, ``{"ask": seat}`` or ``{"choice": key}``; raises :class:`BadAnswer` for anything
    else, before the engine is asked."""
    if lesson.kind == "choice":
        key = data.get("choice")
        assert lesson.choices is not None
        if not isinstance(key, str) or key not in {c.key for c in lesson.choices()}:
            raise BadAnswer("no such choice")
        return {"choice": key}
    act = data.get("act")
    if act == "pass":
        return {"pass": True}
    if act == "ask":
        try:
            seat = int(data.get("seat", ""))
        except (TypeError, ValueError):
            raise BadAnswer("ask whom?") from None
        if seat not in lesson.asks:
            raise BadAnswer("ask whom?")
        return {"ask": seat}
    if act == "play":
        cards = data.get("cards") or []
        if isinstance(cards, str):
            cards = cards.split()
        if not isinstance(cards, list) or not cards or len(cards) > MAX_CARDS:
            raise BadAnswer("no cards")
        try:
            for card in cards:
                parse_card(card)
        except InvalidCard:
            raise BadAnswer("unknown card") from None
        return {"play": sorted(cards)}
    raise BadAnswer("unknown action")


def _engine_action(deal: Deal, answer: dict[str, Any]) -> Action:
    """The engine action the answer means in this deal's phase (a play's combo type is the
    first reading the engine accepts; raises :class:`Refusal` when none is)."""
    if "pass" in answer:
        return Action("pass", pos.YOU)
    if "ask" in answer:
        return Action("ask", pos.YOU, target=answer["ask"])
    ids = tuple(sorted(parse_card(c) for c in answer["play"]))
    if deal.phase in ("tribute", "return"):
        if len(ids) != 1:
            raise Refusal(f"invalid_{deal.phase}", "one card")
        return Action(deal.phase, pos.YOU, ids)
    if deal.phase == "immune":
        return Action("immune", pos.YOU, ids, "immune")
    first: Refusal | None = None
    readings = deal.combos.readings(ids)
    for combo in readings:
        if combo.type == "immune":
            continue
        action = Action("play", pos.YOU, ids, combo.type)
        try:
            deal.check(action)
        except Refusal as refusal:
            first = first or refusal
            continue
        return action
    if first is not None:
        raise first
    # no reading at all: not in hand comes before an invalid combo
    hand = deal.hand(pos.YOU)
    for c in set(ids):
        if hand.count(c) < ids.count(c):
            raise Refusal("not_in_hand", "not in hand")
    raise Refusal("invalid_combo", "no combo")


def judge(lesson: Lesson, data: Mapping[str, Any]) -> Outcome:
    """Judge an answer: clean it (:func:`clean_answer`, raising :class:`BadAnswer`), then play
    it through the engine (play lessons) or compare it with the engine's answer (choice
    lessons), and explain the outcome."""
    answer = clean_answer(lesson, data)
    if lesson.kind == "choice":
        assert lesson.choices is not None
        right = next(c.right for c in lesson.choices() if c.key == answer["choice"])
        return Outcome(right, lesson.text(lesson.right if right else lesson.wrong), None, answer)
    assert lesson.build is not None and lesson.goal is not None
    deal = lesson.build()
    try:
        action = _engine_action(deal, answer)
        deal.apply(action)
    except Refusal as refusal:
        why = lesson.refusals.get(refusal.code, lesson.wrong)
        return Outcome(False, lesson.text(why), refusal.code, answer)
    right = lesson.goal(deal)
    return Outcome(right, lesson.text(lesson.right if right else lesson.wrong), None, answer)


# --------------------------------------------------------------------------- positions
def combos_position() -> Deal:
    """Bao 2, the first lead of a deal at level 3: seat 0 holds three 4s, two 9s, K, Q."""
    return pos.position(
        "bao2",
        [["S4", "C4", "D4", "S9", "H9", "SK", "DQ"], ["C5", "C6"], ["D6", "D7"], ["H8", "C8"]],
        level="3",
    )


def _led_by_left(
    variant: str, level: str, mine: list[str], led: str, type_: str, **case: Any
) -> Deal:
    """Seat 3 (上家, on the learner's left) leads ``led``; the learner follows."""
    theirs = led.split()
    deal = pos.position(
        variant,
        [mine, ["C5", "C6", "D8"], ["D6", "D7", "S8"], [*theirs, "H8", "C8"]],
        level=level,
        leader=3,
        **case,
    )
    pos.play(deal, 3, led, type_)
    return deal


def bomb_order_position() -> Deal:
    """Seat 3 leads a straight flush; the learner holds a bomb of four 5s and of six 9s."""
    return _led_by_left(
        "bao2",
        "3",
        ["S5", "H5", "C5", "D5", "S9", "H9", "C9", "D9", "S9", "D9", "SK"],
        "D6 D7 D8 D9 DT",
        "straight_flush",
    )


def two_bomb_position() -> Deal:
    """Seat 3 leads a supreme bomb (eight Js); the learner, holding the initiative, has the four
    natural 2s and the joker bomb."""
    return _led_by_left(
        "bao2",
        "3",
        ["S2", "H2", "C2", "D2", "SB", "SB", "HR", "HR", "S6"],
        "SJ HJ CJ DJ SJ HJ CJ DJ",
        "supreme",
        initiative=[True, False, False, False],
    )


def wild_position() -> Deal:
    """Level 3 (♥3 wild): seat 3 leads the straight 7-J; the learner holds 9 10 J Q and ♥3."""
    return _led_by_left(
        "bao2", "3", ["H3", "S9", "CT", "DJ", "SQ", "S4"], "S7 D8 C9 DT SJ", "straight"
    )


def little_two_position() -> Deal:
    """Seat 3 leads ♠7; the learner holds ♠2 ♦2 ♣9 ♦4 and has no initiative."""
    return _led_by_left("bao2", "3", ["S2", "D2", "C9", "D4"], "S7", "single")


def jiefeng_position() -> Deal:
    """The partner (seat 2) has gone out; the learner leads by 接风 with ♠2 ♥2 ♠6 ♠8."""
    return pos.position(
        "bao2",
        [["S2", "H2", "S6", "S8"], ["C5", "C6", "D8"], [], ["D6", "D7", "C8"]],
        level="3",
        finished=[2],
        lead_kind="jiefeng",
    )


def bao2_position() -> Deal:
    """The learner won the last trick (initiative) and holds only ♠2 ♦2."""
    return pos.position(
        "bao2",
        [["S2", "D2"], ["C5", "C6", "D8"], ["D6", "D7", "S8"], ["H8", "C8", "C9"]],
        level="3",
        lead_kind="trick",
        initiative=[True, False, False, False],
    )


WILD_H3 = parse_card("H3")
IMMUNE = ["S7", "S7", "H7", "H7", "C7", "C7", "D7", "D7", "H3", "H3"]


def immune_position() -> Deal:
    """Seat 3 won a trick and led its last cards ♠2 ♣2: a 保2. The learner is asked first in
    the immune window, holding eight 7s, both wild ♥3s and ♣4."""
    deal = pos.position(
        "bao2",
        [[*IMMUNE, "C4"], ["C5", "C6", "D8"], ["D6", "DK", "S8"], ["S2", "C2"]],
        level="3",
        leader=3,
        lead_kind="trick",
        initiative=[False, False, False, True],
    )
    pos.play(deal, 3, "S2 C2", "pair")
    return deal


def ask_position() -> Deal:
    """The learner leads; the right-hand opponent holds 8 cards, the partner 4, the left-hand
    opponent 12."""
    return pos.position(
        "bao2",
        [
            ["S4", "S6", "S9", "DK"],
            ["C5", "C6", "D8", "D9", "CT", "CJ", "CQ", "CK"],
            ["D6", "D7", "S8", "SJ"],
            ["H8", "C8", "C9", "H9", "HT", "HJ", "HQ", "HK", "S5", "H5", "D5", "D4"],
        ],
        level="3",
    )


def pay_tribute_position(
    variant: str = "bao2", level: str = "7", hand: list[str] | None = None
) -> Deal:
    """The learner came last in the previous deal and pays the 1st player (seat 1)."""
    return pos.position(
        variant,
        [hand or ["H7", "SA", "DK", "C9", "S4"], ["C5", "C6"], ["D6", "D7"], ["S8", "C8"]],
        level=level,
        phase="tribute",
        previous_finish=[1, 2, 3, 0],
    )


def return_position() -> Deal:
    """The learner came 1st; seat 3 has paid its ♠A; the learner gives a card back."""
    deal = pos.tribute_position()
    deal.apply({"seat": 3, "tribute": "SA"})
    return deal


# --------------------------------------------------------------------------- choices
def guan2_facts() -> dict[str, Any]:
    """The 关2 example settled by the engine: base, shut-in 2s, total rise of team 0."""
    example = pos.example_guan2()
    facts = example.facts
    rise = facts["levels"][0] - facts["before"][0]
    return {"base": facts["base"], "closed": facts["closed"], "total": rise}


def guan2_choices() -> list[Choice]:
    """+3, +5, +6 … with the engine's rise marked right."""
    total = guan2_facts()["total"]
    options = sorted({3, total - 1, total, total + 2} - {0})
    return [Choice(str(n), f"+{n}", n == total) for n in options]


def _settled(key: str) -> pos.Settlement:
    return next(s for s in pos.settlements() if s.key == key)


def excess_facts() -> dict[str, Any]:
    """The excess case: team 0 at level index 21 earns 5 (双上 3 + 保2 2)."""
    case = _settled("excess")
    from learn.names import level_label  # the names need Django's translations

    return {
        "ours": level_label("bao2", case.levels[0]),
        "theirs": level_label("bao2", case.levels[1]),
        "top": level_label("bao2", 23),
        "earned": 5,
        "excess": case.levels[0] + 5 - 23,
        "after": level_label("bao2", case.out["levels"][1]),
    }


def excess_choices() -> list[Choice]:
    """The opponents' level after the deal: the engine's, and plausible wrong ones."""
    from learn.names import level_label

    case = _settled("excess")
    right = case.out["levels"][1]
    options = sorted({right, case.levels[1], right - 2} - {-1, -2})
    return [Choice(str(n), level_label("bao2", n), n == right) for n in options]


def _fate(out: dict[str, Any], team: int, before: int) -> str:
    if out["winner"] == team:
        return "win"
    if out["levels"][team] < before:
        return "reset"
    return "again"


FATES = {
    "win": _("Your team passes 2A and wins the match."),
    "again": _("Your team stays at 2A and tries again next deal."),
    "reset": _("Your team goes back to level 3 and starts climbing again."),
}


def attempt_choices() -> list[Choice]:
    """What becomes of the team at 2A after its third failed attempt (the engine decides)."""
    case = _settled("third")
    fate = _fate(case.out, 0, case.levels[0])
    return [Choice(k, str(v), k == fate) for k, v in FATES.items()]


GUANDAN_FATES = {
    "win": _("Your team passes A and wins the match."),
    "again": _("Your team stays at A and tries again next deal."),
    "reset": _("Your team drops back to level 2."),
}


def guandan_attempt_out() -> dict[str, Any]:
    """Guandan: team 0 plays its A (index 12), comes 1st with its partner last."""
    from engine.variants import deal_rules

    return deal_rules("guandan").settle_levels(
        [12, 8], 0, [0, 0], [0, 1, 3, 2], [0, 0], [0, 0], {"a_attempts": 3}
    )


def guandan_attempt_choices() -> list[Choice]:
    """The engine's fate of the team at A after 1st and last."""
    fate = _fate(guandan_attempt_out(), 0, 12)
    return [Choice(k, str(v), k == fate) for k, v in GUANDAN_FATES.items()]


def _standing_is_mine(deal: Deal) -> bool:
    return deal.standing_seat == pos.YOU


def _accepted(deal: Deal) -> bool:
    return True


# --------------------------------------------------------------------------- the lessons
BAO2: list[Lesson] = [
    Lesson(
        "bao2",
        "combos",
        _("Combinations"),
        _("You lead the first trick. Lead a full house (三带二): three of a kind with a pair."),
        _(
            "Right: three 4s with the pair of 9s is a full house. A full house carries exactly "
            "one pair, and the triple's rank is what counts."
        ),
        _(
            "That is a play, but not a full house. A full house is three cards of one rank "
            "with a pair of another rank."
        ),
        "bao2#combos",
        {"act": "play", "cards": ["S4", "C4", "D4", "S9", "H9"]},
        [
            {"act": "play", "cards": ["S4", "C4", "D4"]},
            {"act": "play", "cards": ["S4", "C4", "D4", "SK"]},
        ],
        build=combos_position,
        goal=lambda d: (
            bool(d.trick) and d.trick[-1][1] is not None and d.trick[-1][1].type == "full_house"
        ),
        refusals={
            "invalid_combo": _(
                "Three with a single card is no combination in 保2: a full house carries a pair, "
                "nothing else."
            )
        },
    ),
    Lesson(
        "bao2",
        "bomb-order",
        _("The order of bombs"),
        _("Your left-hand opponent led a straight flush. Beat it."),
        _(
            "Right: a bomb of six beats a straight flush. Low to high: bomb of 4, bomb of 5, "
            "straight flush, bomb of 6, bomb of 7, joker bomb, dragon, supreme."
        ),
        _("The straight flush still stands. One of your bombs beats it: which one is bigger?"),
        "bao2#bombs",
        {"act": "play", "cards": ["S9", "H9", "C9", "D9", "S9", "D9"]},
        [{"act": "play", "cards": ["S5", "H5", "C5", "D5"]}, {"act": "pass"}],
        build=bomb_order_position,
        goal=_standing_is_mine,
        refusals={
            "does_not_beat": _(
                "A bomb of four is lower than a straight flush: the straight flush sits between "
                "the bombs of five and of six."
            )
        },
    ),
    Lesson(
        "bao2",
        "two-bomb",
        _("The closed loop: 2222"),
        _(
            "You hold the initiative. Your left-hand opponent led a supreme bomb (eight Js). Beat it."
        ),
        _(
            "Right: the four natural 2s (四张纯小2炸) beat the supreme bomb and close the loop. "
            "Once they stand, any other bomb beats them."
        ),
        _("The supreme bomb still stands. Only one play in your hand beats it."),
        "bao2#bombs",
        {"act": "play", "cards": ["S2", "H2", "C2", "D2"]},
        [{"act": "play", "cards": ["SB", "SB", "HR", "HR"]}, {"act": "pass"}],
        build=two_bomb_position,
        goal=_standing_is_mine,
        refusals={
            "does_not_beat": _(
                "The joker bomb is below the dragon and the supreme bomb. Only the four natural 2s "
                "beat a supreme bomb."
            )
        },
    ),
    Lesson(
        "bao2",
        "wild",
        _("Wild cards (逢人配)"),
        _(
            "The level is 3, so your ♥3 is wild. Your left-hand opponent led the straight 7 to J. "
            "Beat it."
        ),
        _(
            "Right: the ♥3 stands in for the missing card and makes a higher straight. A wild "
            "card may stand for any card but a joker inside a combination."
        ),
        _("You could have beaten it: the wild ♥3 fills the gap in 9 10 J Q."),
        "bao2#wild",
        {"act": "play", "cards": ["H3", "S9", "CT", "DJ", "SQ"]},
        [{"act": "pass"}, {"act": "play", "cards": ["S9", "CT", "DJ", "SQ"]}],
        build=wild_position,
        goal=lambda d: _standing_is_mine(d) and WILD_H3 in (d.standing.cards if d.standing else ()),
        refusals={
            "invalid_combo": _(
                "Four cards make no straight: a straight has five. Add the wild ♥3."
            ),
            "does_not_beat": _("A straight is beaten only by a higher straight of five cards."),
        },
    ),
    Lesson(
        "bao2",
        "little-2",
        _("The little 2s (小2)"),
        _("Your left-hand opponent led ♠7. You have not won a trick in this deal. Beat it."),
        _(
            "Right: ♣9 beats ♠7. Your 2s must wait: a natural 2 may only be played by a player "
            "who holds the initiative (主动出牌权), won by winning a trick."
        ),
        _("That does not win you the trick."),
        "bao2#little-2",
        {"act": "play", "cards": ["C9"]},
        [{"act": "play", "cards": ["S2"]}, {"act": "play", "cards": ["D4"]}],
        build=little_two_position,
        goal=_standing_is_mine,
        refusals={
            "needs_initiative": _(
                "Refused: without the initiative you cannot play a natural 2. Win a trick first "
                "(everyone else passes on your play); then your 2s are free."
            ),
            "does_not_beat": _("♦4 is lower than ♠7. Try a higher card that is not a 2."),
        },
    ),
    Lesson(
        "bao2",
        "jiefeng",
        _("接风 gives no initiative"),
        _("Your partner has just gone out and you lead by 接风. Lead a card."),
        _(
            "Right. Leading by 接风, the first lead of a deal and the lead after tribute give no "
            "initiative: your 2s wait until you win a trick."
        ),
        _("Lead a card you may play."),
        "bao2#little-2",
        {"act": "play", "cards": ["S6"]},
        [{"act": "play", "cards": ["S2", "H2"]}],
        build=jiefeng_position,
        goal=_accepted,
        refusals={
            "needs_initiative": _(
                "Refused: 接风 does not give the initiative, so your natural 2s cannot be led. "
                "Lead ♠6 or ♠8."
            )
        },
    ),
    Lesson(
        "bao2",
        "bao2",
        _("保2: going out with the 2s"),
        _("You won the last trick and hold only ♠2 ♦2. Go out with a 保2."),
        _(
            "Right: a lead of all your remaining cards, all natural 2s, after winning a trick, "
            "is a 保2. You came 1st, so your team earns one level per 2: +%(bonus)s."
        ),
        _(
            "That is no 保2: a 保2 is your whole remaining hand, all natural 2s, led at once. "
            "Lead both 2s together."
        ),
        "bao2#bao2",
        {"act": "play", "cards": ["D2", "S2"]},
        [{"act": "play", "cards": ["S2"]}],
        build=bao2_position,
        goal=lambda d: d.bao2[0] > 0,
        facts=lambda: {"bonus": 2},
    ),
    Lesson(
        "bao2",
        "immune",
        _("The immune bomb"),
        _(
            "Your left-hand opponent just made a 保2 with ♠2 ♣2. You are asked first in the "
            "immune window. Cancel their 保2."
        ),
        _(
            "Right: eight natural 7s with both wild ♥3s are the immune bomb (免疫炸弹). It "
            "cancels every 保2 level of that team in this deal, and you lead next."
        ),
        _("Their 保2 stands and they keep its levels. Play the immune bomb: all ten cards."),
        "bao2#immune",
        {"act": "play", "cards": IMMUNE},
        [{"act": "pass"}, {"act": "play", "cards": ["C4"]}],
        build=immune_position,
        goal=lambda d: d.bao2[1] == 0,
        refusals={
            "invalid_combo": _(
                "The immune bomb is all eight natural cards of one rank with both wild cards."
            ),
        },
    ),
    Lesson(
        "bao2",
        "guan2",
        _("关2: shutting in the 2s"),
        _(
            "You came 1st and your partner 2nd. The opponents still hold three natural 2s "
            "between them. How many levels does your team rise?"
        ),
        _(
            "Right: 1st and 2nd (双上) is +%(base)s, and each natural 2 shut in the losers' hands "
            "is one more level: +%(closed)s. In all +%(total)s."
        ),
        _(
            "Not quite: 1st and 2nd is +%(base)s, and the %(closed)s natural 2s shut in the "
            "losers' hands add one level each. In all +%(total)s."
        ),
        "bao2#guan2",
        {"choice": "6"},
        [{"choice": "3"}],
        choices=guan2_choices,
        facts=guan2_facts,
    ),
    Lesson(
        "bao2",
        "ask",
        _("报牌: card counts"),
        _(
            "Counts of 6 cards or fewer are always shown. Find out how many cards your "
            "right-hand opponent holds."
        ),
        _(
            "Right: a count of 7 to 10 may be asked at any time, and everyone then sees the "
            "answer. Above 10 it is never told."
        ),
        _("Ask about the right-hand opponent."),
        "bao2#counts",
        {"act": "ask", "seat": 1},
        [{"act": "ask", "seat": 3}],
        build=ask_position,
        goal=lambda d: d.revealed[1],
        refusals={
            "invalid_ask": _(
                "Refused: the left-hand opponent holds more than 10 cards, and such a count is "
                "never told. Ask about the right-hand opponent."
            )
        },
        asks=(1, 3),
    ),
    Lesson(
        "bao2",
        "tribute",
        _("Paying tribute (进贡)"),
        _(
            "You came last in the previous deal. The level is 7, so ♥7 is wild. Give your "
            "tribute to the player who came 1st."
        ),
        _(
            "Right: the tribute is your highest card by the single order, and the wild cards "
            "are left out. Here that is the ♠A."
        ),
        _("Select the one card to give."),
        "bao2#tribute",
        {"act": "play", "cards": ["SA"]},
        [{"act": "play", "cards": ["H7"]}, {"act": "play", "cards": ["DK"]}],
        build=pay_tribute_position,
        goal=_accepted,
        refusals={
            "invalid_tribute": _(
                "Refused: the tribute must be your highest card, leaving out the wild ♥7. Your "
                "highest other card is the ♠A."
            )
        },
    ),
    Lesson(
        "bao2",
        "return",
        _("Giving a card back (还贡)"),
        _(
            "You came 1st and received the ♠A as tribute. The level is 7. Give a card back to "
            "the player who paid you."
        ),
        _(
            "Right: in 保2 the card given back is of rank 3 to 10 and not a level card. Then the "
            "player who paid leads — without the initiative."
        ),
        _("Select the one card to give back."),
        "bao2#tribute",
        {"act": "play", "cards": ["S8"]},
        [{"act": "play", "cards": ["HK"]}, {"act": "play", "cards": ["D7"]}],
        build=return_position,
        goal=_accepted,
        refusals={
            "invalid_return": _(
                "Refused: in 保2 you give back a card of rank 3 to 10 that is not a level card "
                "(not a 7 at level 7), such as ♠8 or ♣4."
            )
        },
    ),
    Lesson(
        "bao2",
        "excess",
        _("The top level and excess"),
        _(
            "Your team is at %(ours)s, the opponents at %(theirs)s. You come 1st and 2nd and "
            "make a 保2 of two 2s: you earn %(earned)s levels. Where are the opponents after "
            "this deal?"
        ),
        _(
            "Right: a level cannot pass %(top)s. The %(excess)s levels beyond it are taken off "
            "the other team: they go down to %(after)s."
        ),
        _(
            "Not quite: your team stops at %(top)s and the %(excess)s levels beyond it lower the "
            "other team, down to %(after)s."
        ),
        "bao2#settle",
        {"choice": "7"},
        [{"choice": "10"}],
        choices=excess_choices,
        facts=excess_facts,
    ),
    Lesson(
        "bao2",
        "two-a",
        _("Passing 2A"),
        _(
            "Your team plays its 2A and has failed twice already. This deal the opponents come "
            "1st. What happens to your team?"
        ),
        _(
            "Right: only 1st with the partner 2nd or 3rd passes 2A. The third failed attempt "
            "sends the team back to level 3."
        ),
        _(
            "No: only 1st with the partner 2nd or 3rd passes 2A, and the third failed attempt "
            "sends the team back to level 3."
        ),
        "bao2#settle",
        {"choice": "reset"},
        [{"choice": "again"}, {"choice": "win"}],
        choices=attempt_choices,
    ),
]

GUANDAN: list[Lesson] = [
    Lesson(
        "guandan",
        "wild",
        _("Wild cards make bombs"),
        _(
            "Guandan at level 5: your ♥5 is wild. Your left-hand opponent led a pair of kings. "
            "Beat it."
        ),
        _("Right: three 9s and the wild ♥5 are a bomb of four 9s, and a bomb beats any pair."),
        _("The kings still stand. The wild ♥5 can make a bomb with your 9s."),
        "guandan#wild",
        {"act": "play", "cards": ["S9", "C9", "D9", "H5"]},
        [{"act": "play", "cards": ["S9", "C9"]}, {"act": "pass"}],
        build=lambda: _led_by_left("guandan", "5", ["S9", "C9", "D9", "H5", "S4"], "SK DK", "pair"),
        goal=_standing_is_mine,
        refusals={"does_not_beat": _("A pair of 9s is lower than a pair of kings.")},
    ),
    Lesson(
        "guandan",
        "bombs",
        _("The order of bombs"),
        _("Your left-hand opponent led a bomb of five 8s. Beat it."),
        _("Right: a straight flush beats a bomb of five and loses to a bomb of six."),
        _("The bomb of five still stands. One of your plays beats it."),
        "guandan#bombs",
        {"act": "play", "cards": ["D9", "DT", "DJ", "DQ", "DK"]},
        [{"act": "play", "cards": ["S4", "H4", "C4", "D4"]}],
        build=lambda: _led_by_left(
            "guandan",
            "2",
            ["D9", "DT", "DJ", "DQ", "DK", "S4", "H4", "C4", "D4", "SA"],
            "S8 H8 C8 D8 S8",
            "bomb",
        ),
        goal=_standing_is_mine,
        refusals={"does_not_beat": _("A bomb of four is lower than a bomb of five.")},
    ),
    Lesson(
        "guandan",
        "tribute",
        _("Tribute at level 2"),
        _("You came last. The level is 2. Give your tribute to the player who came 1st."),
        _(
            "Right: the level card ranks just above the A, so your ♠2 is your highest card "
            "(only the wild ♥2 would be left out). In Guandan any card may be given back."
        ),
        _("Select the one card to give."),
        "guandan#tribute",
        {"act": "play", "cards": ["S2"]},
        [{"act": "play", "cards": ["SA"]}],
        build=lambda: pay_tribute_position("guandan", "2", ["SA", "S2", "D9", "C3"]),
        goal=_accepted,
        refusals={
            "invalid_tribute": _(
                "Refused: at level 2 the 2s are level cards and rank above the A. Give the ♠2."
            )
        },
    ),
    Lesson(
        "guandan",
        "pass-a",
        _("Passing A"),
        _("Your team plays its A. You come 1st, but your partner comes last. What happens?"),
        _(
            "Right: A is passed only with 1st and the partner 2nd or 3rd. This is a failed "
            "attempt; after three the team drops back to level 2."
        ),
        _(
            "No: A is passed only with 1st and the partner 2nd or 3rd. This is a failed attempt, "
            "the first of three."
        ),
        "guandan#settle",
        {"choice": "again"},
        [{"choice": "win"}],
        choices=guandan_attempt_choices,
    ),
]

#: Every course: the game and its lessons, in order.
COURSES: dict[str, list[Lesson]] = {"bao2": BAO2, "guandan": GUANDAN}


def lesson(course: str, slug: str) -> Lesson | None:
    """The lesson ``slug`` of ``course`` (None: no such lesson)."""
    for item in COURSES.get(course, []):
        if item.slug == slug:
            return item
    return None


def next_lesson(item: Lesson) -> Lesson | None:
    """The lesson after ``item`` in its course (None after the last)."""
    lessons = COURSES[item.course]
    i = lessons.index(item)
    return lessons[i + 1] if i + 1 < len(lessons) else None
