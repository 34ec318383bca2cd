"""The positions of the rules guide and the tutorial, built by the engine: the one source.

Every example the guide shows and every lesson's starting position is built here, through the
engine's own API (``Deal.from_position`` and ``Deal.apply`` for play, the deal rules'
``settle_levels`` and the combo rules' ``beats`` for settlements and the bomb order). The pages
show what these functions return — cards, plays, levels — never numbers written by hand, and
``tests/learn`` checks every fact the guide's words state, so the guide cannot drift from the
rules the tables play.

No game name is compared here (the architecture test forbids it outside engine/ and games/);
each builder simply names the variant it builds a position of.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.cards import parse_cards
from engine.deal import Deal
from engine.variants import combo_rules, deal_rules

#: The learner always sits at seat 0 (the bottom of the table); seat 2 is the partner.
YOU = 0


def position(variant: str, hands: list[list[str]], **case: Any) -> Deal:
    """A deal of ``variant`` in a set-up position (the conformance vectors' ``deal`` case:
    ``leader``, ``lead_kind``, ``initiative``, ``finished``, ``level``, ``phase`` …)."""
    data = {"variant": variant, "hands": hands, "leader": 0, "lead_kind": "first", **case}
    return Deal.from_position(deal_rules(variant), data)


def play(deal: Deal, seat: int, cards: str, type_: str) -> None:
    """Seat ``seat`` plays ``cards`` (space-separated notation) as ``type_``."""
    deal.apply({"seat": seat, "play": cards.split(), "type": type_})


def passes(deal: Deal, *seats: int) -> None:
    """Each of ``seats`` passes, in order."""
    for seat in seats:
        deal.apply({"seat": seat, "pass": True})


# --------------------------------------------------------------------------- guide examples
@dataclass
class Step:
    """One action of an example as the guide shows it: who, what kind (``play``, ``pass``,
    ``immune``, ``tribute``, ``return``), the cards, the combo type."""

    seat: int
    kind: str
    cards: list[str] = field(default_factory=list)
    type: str = ""


@dataclass
class Example:
    """An example played through the engine: the hands at the start (seat -> cards), the
    steps, the deal's level rank and the facts the engine gave (``facts``: plain values the
    guide's sentences are filled with)."""

    slug: str
    variant: str
    level: str | None
    hands: dict[int, list[str]]
    steps: list[Step]
    facts: dict[str, Any]


def _run(deal: Deal, actions: list[dict[str, Any]]) -> list[Step]:
    steps = []
    for action in actions:
        deal.apply(action)
        kind = next(k for k in ("play", "pass", "immune", "tribute", "return") if k in action)
        cards = action.get(kind)
        cards = [] if cards is True else ([cards] if isinstance(cards, str) else list(cards))
        steps.append(Step(action["seat"], kind, cards, action.get("type", "")))
    return steps


def _hands(deal: Deal) -> dict[int, list[str]]:
    return {s: deal.to_json()["hands"][s] for s in range(deal.n)}


def example_immune() -> Example:
    """保2 and the immune window: seat 0 wins a trick, leads its last cards ♠2 ♦2 (a 保2
    worth 2 levels); seat 1 answers with the immune bomb (eight 7s and both wild ♥3s), which
    cancels the 2 levels; seat 1 then leads, as by 接风, without gaining initiative."""
    deal = position(
        "bao2",
        [
            ["S9", "S2", "D2"],
            ["S7", "S7", "H7", "H7", "C7", "C7", "D7", "D7", "H3", "H3", "C4"],
            ["D6", "DK"],
            ["C8", "CJ"],
        ],
        level="3",
    )
    hands = _hands(deal)
    steps = _run(
        deal,
        [
            {"seat": 0, "play": ["S9"], "type": "single"},
            {"seat": 1, "pass": True},
            {"seat": 2, "pass": True},
            {"seat": 3, "pass": True},
            {"seat": 0, "play": ["S2", "D2"], "type": "pair"},
        ],
    )
    earned = deal.bao2[0]
    window = deal.phase
    first_asked = deal.turn
    immune = sorted(["S7", "S7", "H7", "H7", "C7", "C7", "D7", "D7", "H3", "H3"])
    deal.apply({"seat": 1, "immune": immune})
    steps.append(Step(1, "immune", immune, "immune"))
    return Example(
        "immune",
        "bao2",
        deal.level,
        hands,
        steps,
        {
            "earned": earned,
            "window": window,
            "first_asked": first_asked,
            "after": deal.bao2[0],
            "leader": deal.turn,
            "lead_kind": deal.lead_kind,
            "leader_initiative": deal.initiative[1],
        },
    )


def example_guan2() -> Example:
    """关2: seat 0 is already out; its partner (seat 2) leads its last card, so team 0 has 1st
    and 2nd (双上, 3 levels) and the three natural 2s left in the opponents' hands are shut in:
    3 more levels."""
    deal = position(
        "bao2",
        [[], ["S2", "C5"], ["SK"], ["D2", "H2", "C6"]],
        level="8",
        leader=2,
        lead_kind="jiefeng",
        finished=[0],
    )
    hands = _hands(deal)
    steps = _run(deal, [{"seat": 2, "play": ["SK"], "type": "single"}])
    result = deal.result or {}
    out = deal.rules.settle_levels(
        [5, 4], 0, [0, 0], result["finish"], result["bao2"], result["closed"], {}
    )
    return Example(
        "guan2",
        "bao2",
        deal.level,
        hands,
        steps,
        {
            "over": deal.over,
            "finish": result["finish"],
            "base": result["base"][0],
            "closed": result["closed"][0],
            "before": [5, 4],
            "levels": out["levels"],
        },
    )


#: The closed loop of Bao 2's bombs at level 3, low to high, then the 2222 that closes it.
BOMB_LOOP = [
    ("bomb", "S5 H5 C5 D5"),
    ("bomb", "S6 H6 C6 D6 S6"),
    ("straight_flush", "S8 S9 ST SJ SQ"),
    ("bomb", "S9 H9 C9 D9 S9 H9"),
    ("bomb", "ST HT CT DT ST HT CT"),
    ("joker_bomb", "SB SB HR HR"),
    ("dragon", "C4 C5 C6 C7 C8 C9 CT CJ CQ CK"),
    ("supreme", "SJ HJ CJ DJ SJ HJ CJ DJ"),
    ("two_bomb", "S2 H2 C2 D2"),
]


def example_bomb_loop() -> Example:
    """The closed bomb loop (十): each bomb of :data:`BOMB_LOOP` beats the one before it, the
    four natural 2s beat the supreme bomb, and once the 2222 stands the lowest bomb of four
    beats it — yet the 2222 never beats that bomb."""
    rules = combo_rules("bao2", "3")
    combos = [rules.read_as(parse_cards(c.split()), t) for t, c in BOMB_LOOP]
    assert all(c is not None for c in combos)
    # no seats here: a list of bombs, not a trick (seat -1 is shown without a name)
    steps = [Step(-1, "play", cards.split(), type_) for type_, cards in BOMB_LOOP]
    chain = [rules.beats(combos[i + 1], combos[i]) for i in range(len(combos) - 1)]  # type: ignore[arg-type]
    return Example(
        "bomb_loop",
        "bao2",
        "3",
        {},
        steps,
        {
            "chain": chain,
            "two_beats_supreme": rules.beats(combos[-1], combos[-2]),  # type: ignore[arg-type]
            "four_beats_two": rules.beats(combos[0], combos[-1]),  # type: ignore[arg-type]
            "two_beats_four": rules.beats(combos[-1], combos[0]),  # type: ignore[arg-type]
            "two_beats_six": rules.beats(combos[-1], combos[3]),  # type: ignore[arg-type]
        },
    )


def tribute_position(variant: str = "bao2") -> Deal:
    """A single tribute before a deal at level 7: last time seat 3 came last and seat 0 1st,
    so seat 3 pays seat 0 its highest card (♠A: the wild ♥7 is left out), and seat 0 gives
    back a card."""
    return position(
        variant,
        [
            ["HK", "SQ", "S8", "D7", "C4", "S2"],
            ["C9", "DJ"],
            ["S5", "DQ"],
            ["H7", "SA", "DK", "C9", "S4"],
        ],
        level="7",
        phase="tribute",
        previous_finish=[0, 1, 2, 3],
    )


def example_tribute() -> Example:
    """Tribute and its return in Bao 2: seat 3 pays ♠A (its highest card, the wild card left
    out); seat 0 returns ♠8 (rank 3 to 10, not a level card: not ♥K, not ♦7); seat 3 leads,
    without initiative."""
    deal = tribute_position()
    hands = _hands(deal)
    tribute_ok = [c for c in ("H7", "SA", "DK") if _accepts(deal, {"seat": 3, "tribute": c})]
    steps = _run(deal, [{"seat": 3, "tribute": "SA"}])
    return_ok = [
        c for c in ("HK", "SQ", "S8", "D7", "C4", "S2") if _accepts(deal, {"seat": 0, "return": c})
    ]
    steps += _run(deal, [{"seat": 0, "return": "S8"}])
    return Example(
        "tribute",
        "bao2",
        deal.level,
        hands,
        steps,
        {
            "tribute_ok": tribute_ok,
            "return_ok": return_ok,
            "leader": deal.turn,
            "lead_kind": deal.lead_kind,
            "initiative": deal.initiative[3],
        },
    )


def example_guandan_tribute() -> Example:
    """Tribute and its return in Guandan, in the same position as :func:`example_tribute`: the
    ♠A is paid the same way, but the 1st player may give back any card — here the ♥K."""
    deal = tribute_position("guandan")
    hands = _hands(deal)
    steps = _run(deal, [{"seat": 3, "tribute": "SA"}])
    return_ok = [
        c for c in ("HK", "SQ", "S8", "D7", "C4", "S2") if _accepts(deal, {"seat": 0, "return": c})
    ]
    steps += _run(deal, [{"seat": 0, "return": "HK"}])
    return Example(
        "guandan_tribute",
        "guandan",
        deal.level,
        hands,
        steps,
        {"return_ok": return_ok, "leader": deal.turn, "lead_kind": deal.lead_kind},
    )


def _accepts(deal: Deal, action: dict[str, Any]) -> bool:
    try:
        deal.check(action)
    except Exception:  # noqa: BLE001 - any refusal means "not allowed"
        return False
    return True


@dataclass
class Settlement:
    """One deal's settlement under Bao 2's level rules: the levels and failed 2A attempts
    before, the level team, the finishing order and the 保2 / 关2 levels; ``out`` is what the
    engine's ``settle_levels`` gives."""

    key: str
    levels: list[int]
    level_team: int
    attempts: list[int]
    finish: list[int]
    bao2: list[int]
    closed: list[int]
    out: dict[str, Any] = field(default_factory=dict)


def settlements() -> list[Settlement]:
    """The guide's settlement table: excess lowering, a passed 2A and a third failed attempt,
    each settled by the engine."""
    cases = [
        Settlement("excess", [21, 10], 0, [0, 0], [0, 2, 1, 3], [2, 0], [0, 0]),
        Settlement("protected", [23, 20], 1, [0, 0], [1, 3, 0, 2], [0, 2], [0, 0]),
        Settlement("pass", [23, 17], 0, [1, 0], [0, 1, 2, 3], [0, 0], [0, 0]),
        Settlement("fail", [23, 17], 0, [1, 0], [0, 1, 3, 2], [0, 0], [0, 0]),
        Settlement("third", [23, 17], 0, [2, 0], [1, 0, 2, 3], [0, 0], [0, 0]),
    ]
    rules = deal_rules("bao2")
    for case in cases:
        case.out = rules.settle_levels(
            case.levels,
            case.level_team,
            case.attempts,
            case.finish,
            case.bao2,
            case.closed,
            {"a_attempts": 3},
        )
    return cases


def example_guandan_wild() -> Example:
    """逢人配 in Guandan at level 5: ♥5 is wild; ♠9 ♣9 ♦9 with the ♥5 read as a bomb of four
    9s, and the bomb beats a pair of kings."""
    rules = combo_rules("guandan", "5")
    cards = parse_cards(["S9", "C9", "D9", "H5"])
    readings = [c.reading() for c in rules.readings(cards)]
    bomb = rules.read_as(cards, "bomb")
    kings = rules.read_as(parse_cards(["SK", "DK"]), "pair")
    assert bomb is not None and kings is not None
    return Example(
        "guandan_wild",
        "guandan",
        "5",
        {},
        [Step(1, "play", ["SK", "DK"], "pair"), Step(0, "play", ["S9", "C9", "D9", "H5"], "bomb")],
        {"readings": readings, "beats": rules.beats(bomb, kings)},
    )


def example_guandan_bombs() -> Example:
    """Guandan's plain bomb order at level 2: a straight flush beats a bomb of five and loses
    to a bomb of six."""
    rules = combo_rules("guandan", "2")
    five = rules.read_as(parse_cards("S8 H8 C8 D8 S8".split()), "bomb")
    flush = rules.read_as(parse_cards("D9 DT DJ DQ DK".split()), "straight_flush")
    six = rules.read_as(parse_cards("S4 H4 C4 D4 S4 H4".split()), "bomb")
    assert five and flush and six
    return Example(
        "guandan_bombs",
        "guandan",
        "2",
        {},
        [
            Step(1, "play", "S8 H8 C8 D8 S8".split(), "bomb"),
            Step(2, "play", "D9 DT DJ DQ DK".split(), "straight_flush"),
            Step(3, "play", "S4 H4 C4 D4 S4 H4".split(), "bomb"),
        ],
        {"flush_beats_five": rules.beats(flush, five), "six_beats_flush": rules.beats(six, flush)},
    )


def example_honger_bombs() -> Example:
    """Red Two's order: the 2 is the highest card, and a bomb's size counts before its rank —
    five 3s beat four 2s."""
    rules = combo_rules("honger")
    twos = rules.read_as(parse_cards("S2 C2 D2 S2".split()), "bomb")
    threes = rules.read_as(parse_cards("S3 H3 C3 D3 S3".split()), "bomb")
    ace = rules.read_as(parse_cards(["SA"]), "single")
    two = rules.read_as(parse_cards(["C2"]), "single")
    assert twos and threes and ace and two
    return Example(
        "honger_bombs",
        "honger",
        None,
        {},
        [
            Step(1, "play", ["SA"], "single"),
            Step(2, "play", ["C2"], "single"),
            Step(1, "play", "S2 C2 D2 S2".split(), "bomb"),
            Step(2, "play", "S3 H3 C3 D3 S3".split(), "bomb"),
        ],
        {"two_beats_ace": rules.beats(two, ace), "five_beats_four": rules.beats(threes, twos)},
    )


def example_shuangkou_lines() -> Example:
    """Shuangkou's bombs by lines: five 9s (5 lines) lose to three jokers (6 lines), which lose
    to six 3s (6 lines, the same count but a natural bomb of 6 ranks above the three jokers)."""
    rules = combo_rules("shuangkou2")
    five = rules.read_as(parse_cards("S9 H9 C9 D9 S9".split()), "bomb")
    jokers = rules.read_as(parse_cards("SB SB HR".split()), "joker3")
    six = rules.read_as(parse_cards("S3 H3 C3 D3 S3 H3".split()), "bomb")
    assert five and jokers and six
    return Example(
        "shuangkou_lines",
        "shuangkou2",
        None,
        {},
        [
            Step(1, "play", "S9 H9 C9 D9 S9".split(), "bomb"),
            Step(0, "play", "SB SB HR".split(), "joker3"),
            Step(1, "play", "S3 H3 C3 D3 S3 H3".split(), "bomb"),
        ],
        {
            "lines": [five.lines, jokers.lines, six.lines],
            "jokers_beat_five": rules.beats(jokers, five),
            "six_beats_jokers": rules.beats(six, jokers),
        },
    )


#: Every guide example by slug: built on demand (cheap: a few engine calls).
EXAMPLES: dict[str, Callable[[], Example]] = {
    "immune": example_immune,
    "guan2": example_guan2,
    "bomb_loop": example_bomb_loop,
    "tribute": example_tribute,
    "guandan_wild": example_guandan_wild,
    "guandan_tribute": example_guandan_tribute,
    "guandan_bombs": example_guandan_bombs,
    "honger_bombs": example_honger_bombs,
    "shuangkou_lines": example_shuangkou_lines,
}
