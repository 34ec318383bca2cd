"""The rules guide of the four games: sections of plain words, with engine-built examples.

The words live in the gettext catalogues (one msgid per paragraph), so both languages are
complete and checked like every other text of the site. Cards, plays and numbers are never
written here: each section names an example of :mod:`learn.positions` (or a list of sample
combinations the engine reads), and the page shows what the engine built.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Section:
    """One section of a guide: its anchor (linked from the table and the lessons), title,
    paragraphs, and optionally an example (:data:`learn.positions.EXAMPLES` slug, or
    ``combos`` for the sample combinations, ``settlements`` for the settlement table)."""

    anchor: str
    title: Promise
    paragraphs: tuple[Promise, ...]
    example: str = ""
    caption: tuple[Promise, ...] = field(default=())


@dataclass(frozen=True)
class Guide:
    """A game's guide: its name, a one-line summary and its sections."""

    variant: str
    name: Promise
    summary: Promise
    sections: tuple[Section, ...]


#: 报牌 works alike in 保2 and Guandan: one section for both guides.
COUNTS = Section(
    "counts",
    _("报牌: card counts"),
    (
        _(
            "A count of 6 cards or fewer is always shown to everyone. At 7 to 10 cards "
            "anyone may ask, and everyone sees the answer. Above 10 it is never told. "
            "Only the current trick stays on the table: remember the cards played."
        ),
    ),
)


#: Sample combinations per game, each read by the engine as its type (tests/learn checks it):
#: ``(type, cards)`` at the level given.
COMBO_SAMPLES: dict[str, tuple[str | None, list[tuple[str, str]]]] = {
    "bao2": (
        "3",
        [
            ("single", "SK"),
            ("pair", "D9 C9"),
            ("triple", "S4 C4 D4"),
            ("full_house", "S4 C4 D4 S9 H9"),
            ("straight", "S7 D8 C9 DT SJ"),
            ("pair_chain", "S5 D5 C6 D6 S7 H7"),
            ("triple_chain", "S8 C8 D8 S9 C9 D9"),
            ("bomb", "S5 H5 C5 D5"),
            ("straight_flush", "S8 S9 ST SJ SQ"),
        ],
    ),
    "guandan": (
        "2",
        [
            ("single", "SK"),
            ("pair", "D9 C9"),
            ("triple", "S4 C4 D4"),
            ("full_house", "S4 C4 D4 S9 H9"),
            ("straight", "S7 D8 C9 DT SJ"),
            ("pair_chain", "S5 D5 C6 D6 S7 H7"),
            ("triple_chain", "S8 C8 D8 S9 C9 D9"),
            ("bomb", "S5 H5 C5 D5"),
            ("straight_flush", "S8 S9 ST SJ SQ"),
            ("joker_bomb", "SB SB HR HR"),
        ],
    ),
    "honger": (
        None,
        [
            ("single", "H2"),
            ("pair", "D9 C9"),
            ("triple", "S4 C4 D4"),
            ("pair_chain", "S5 D5 C6 D6"),
            ("triple_chain", "S8 C8 D8 S9 C9 D9"),
            ("bomb", "S5 H5 C5 D5"),
        ],
    ),
    "shuangkou2": (
        None,
        [
            ("single", "S2"),
            ("pair", "D9 C9"),
            ("triple", "S4 C4 D4"),
            ("straight", "S7 D8 C9 DT SJ"),
            ("pair_chain", "S5 D5 C6 D6 S7 H7"),
            ("triple_chain", "S8 C8 D8 S9 C9 D9 ST CT DT"),
            ("bomb", "S5 H5 C5 D5"),
            ("chain_bomb", "S5 H5 C5 D5 S6 H6 C6 D6 S7 H7 C7 D7"),
            ("joker3", "SB SB HR"),
        ],
    ),
}

BAO2 = Guide(
    "bao2",
    _("Bao 2 (保2)"),
    _(
        "The Nantong partnership game: Guandan's cards and combinations, plus the little 2s, "
        "保2, 关2 and a closed loop of bombs."
    ),
    (
        Section(
            "table",
            _("The table and the levels"),
            (
                _(
                    "Four players, two packs with their jokers, 27 cards each. Partners sit "
                    "opposite each other; play goes round to the right."
                ),
                _(
                    "Each team climbs levels: 3 up to A, then 3 up to A a second time. The top "
                    "level is the second A, which players call 2A. A deal is played at the level "
                    "of the team whose player came 1st in the deal before; its cards of that "
                    "rank are the level cards."
                ),
            ),
        ),
        Section(
            "combos",
            _("Combinations"),
            (
                _(
                    "You may play: a single, a pair, three of a kind, a full house (three with "
                    "a pair), a straight of five, three pairs in a row, two triples in a row, "
                    "and bombs. A play is beaten only by a higher play of the same kind and "
                    "size — or by a bomb."
                ),
                _(
                    "Card order, low to high: 2 3 4 … K A, then the level card, then the small "
                    "joker and the big joker. In straights every card keeps its natural place "
                    "and the A may stand low or high. Suits never count."
                ),
            ),
            "combos",
        ),
        Section(
            "wild",
            _("Wild cards (逢人配)"),
            (
                _(
                    "The two ♥ level cards are wild: inside a combination of two or more cards "
                    "each may stand for any card but a joker, and the combination counts as "
                    "high as it can. Played alone, a wild card is just a level card."
                ),
            ),
        ),
        Section(
            "bombs",
            _("Bombs and the closed loop"),
            (
                _(
                    "Bombs beat every other play. Low to high: a bomb of 4, of 5, a straight "
                    "flush, a bomb of 6, of 7, the four jokers, the dragon (ten in a row of one "
                    "suit) and the supreme bomb (all eight cards of a rank)."
                ),
                _(
                    "The loop closes with four natural 2s (四张纯小2炸): they beat the supreme "
                    "bomb and every ordinary play, but no other bomb; once they stand, any bomb "
                    "but the supreme beats them."
                ),
            ),
            "bomb_loop",
            (
                _("Each bomb in this list beats the one before it, as the engine compares them."),
                _(
                    "Closing the loop: the four 2s beat the supreme bomb, and the bomb of four "
                    "5s beats the four 2s once they stand — while the four 2s never beat it."
                ),
            ),
        ),
        Section(
            "little-2",
            _("The little 2s and the initiative"),
            (
                _(
                    "A natural 2 may be played only by a player who holds the initiative "
                    "(主动出牌权). You gain it by winning a trick — everyone else passes on your "
                    "play — and keep it for the rest of the deal."
                ),
                _(
                    "The first lead of a deal, the lead after tribute and a lead by 接风 give no "
                    "initiative. A wild card standing for a 2 is not a natural 2. A player left "
                    "with only natural 2s and no initiative is stuck and skipped."
                ),
            ),
        ),
        Section(
            "play",
            _("Tricks and 接风"),
            (
                _(
                    "The leader plays anything; each player in turn beats the play standing or "
                    "passes. When everyone else has passed, the last player to play wins the "
                    "trick and leads. The leader may not pass."
                ),
                _(
                    "When a player goes out and everyone passes on their last cards, their "
                    "partner leads next: that is 接风. The deal ends when both players of a "
                    "team are out, or three players are."
                ),
            ),
        ),
        Section(
            "bao2",
            _("保2: going out with the 2s"),
            (
                _(
                    "A 保2 is a lead, made because your play won the trick before, of your whole "
                    "remaining hand, all natural 2s. If it makes you 1st — or 2nd after your "
                    "partner came 1st — your team earns one extra level for each 2."
                ),
                _(
                    "Nobody may answer a 保2 (iron wind, 铁风盘): if the deal goes on, the partner "
                    "leads next."
                ),
            ),
        ),
        Section(
            "immune",
            _("The immune window"),
            (
                _(
                    "Straight after a 保2, each opponent still holding cards gets one turn to play "
                    "the immune bomb — all eight natural cards of a rank with both wild cards — "
                    "or to pass. The immune bomb cancels the 保2's levels, and its player leads "
                    "next, without gaining the initiative."
                ),
            ),
            "immune",
            (
                _(
                    "You win a trick with ♠9, then lead your last cards ♠2 ♦2: a 保2 worth "
                    "%(earned)s levels. Your right-hand opponent answers with the immune bomb: "
                    "the bonus goes down to %(after)s, and they lead next, without the "
                    "initiative."
                ),
            ),
        ),
        Section(
            "guan2",
            _("关2: shutting in the 2s"),
            (
                _(
                    "Natural 2s left in a loser's hand are shut in. After 1st and 2nd, every 2 "
                    "left in both losers' hands is one more level for the winners. Otherwise "
                    "only the last player's 2s count, for that player's opponents — so both "
                    "teams can rise in one deal."
                ),
            ),
            "guan2",
            (
                _(
                    "You are already out; your partner plays the last card: 1st and 2nd, "
                    "+%(base)s. The opponents still hold %(closed)s natural 2s: +%(closed)s more. "
                    "Your team goes from %(before)s to %(after)s."
                ),
            ),
        ),
        COUNTS,
        Section(
            "tribute",
            _("Tribute and its return"),
            (
                _(
                    "Before every deal but the first, the player who came last gives the 1st "
                    "player their highest card (the wild cards left out). The 1st player gives "
                    "back a card of rank 3 to 10 that is not a level card, and the giver leads."
                ),
                _(
                    "After 1st and 2nd both losers pay: the higher card goes to the 1st player, "
                    "the lower to the 2nd. If the givers hold both big jokers between them, no "
                    "tribute is paid (抗贡)."
                ),
            ),
            "tribute",
            (
                _(
                    "The level is 7, so ♥7 is wild and left out: your left-hand opponent must pay "
                    "the ♠A. You may give back only ♠8 or ♣4 — not ♥K (too high), not ♦7 (a level "
                    "card), not ♠2. Then the giver leads, without the initiative."
                ),
            ),
        ),
        Section(
            "settle",
            _("How a deal is settled"),
            (
                _(
                    "The team of the 1st player rises 3 levels with 1st and 2nd (双上), 2 with 1st "
                    "and 3rd, 1 with 1st and last; then each team adds its 保2 and 关2 levels."
                ),
                _(
                    "No team passes 2A by rising: whatever goes beyond is excess and lowers the "
                    "other team (a team at 2A is never lowered). The team playing its 2A wins the "
                    "match with 1st and its partner 2nd or 3rd; after three failed attempts it "
                    "goes back to level 3."
                ),
            ),
            "settlements",
        ),
    ),
)

GUANDAN = Guide(
    "guandan",
    _("Guandan (掼蛋)"),
    _("The partnership game of Jiangsu: level cards, wild hearts, bombs and tribute."),
    (
        Section(
            "table",
            _("The table and the levels"),
            (
                _(
                    "Four players, two packs with jokers, 27 cards each, partners opposite. "
                    "Teams climb from 2 to A; each deal is played at the level of the team "
                    "that came 1st in the deal before."
                ),
            ),
        ),
        Section(
            "combos",
            _("Combinations"),
            (
                _(
                    "Singles, pairs, triples, full houses, straights of five, three pairs in a "
                    "row, two triples in a row, bombs of four to ten cards, straight flushes and "
                    "the four jokers. The level card ranks just above the A; natural 2s are free "
                    "to play at any time."
                ),
            ),
            "combos",
        ),
        Section(
            "wild",
            _("Wild cards (逢人配)"),
            (
                _(
                    "The two ♥ level cards are wild inside any combination of two or more "
                    "cards, except the four jokers."
                ),
            ),
            "guandan_wild",
            (_("At level 5 the ♥5 turns three 9s into a bomb of four, which beats the kings."),),
        ),
        Section(
            "bombs",
            _("Bombs"),
            (
                _(
                    "Low to high: a bomb of 4, of 5, a straight flush, then bombs of 6 up to 10, "
                    "and the four jokers on top."
                ),
            ),
            "guandan_bombs",
            (_("The straight flush beats the bomb of five and loses to the bomb of six."),),
        ),
        Section(
            "play",
            _("Tricks and 接风"),
            (
                _(
                    "Beat the play standing or pass; when everyone else has passed, the last "
                    "player wins the trick and leads. When a player goes out and everyone "
                    "passes, the partner leads (接风)."
                ),
            ),
        ),
        COUNTS,
        Section(
            "tribute",
            _("Tribute and its return"),
            (
                _(
                    "The player who came last gives the 1st player their highest card (the wild "
                    "cards left out); the 1st player gives back any card, and the giver leads. "
                    "After 1st and 2nd both losers pay. Both big jokers in the givers' hands "
                    "cancel the tribute (抗贡)."
                ),
            ),
            "guandan_tribute",
            (
                _(
                    "At level 7 the wild ♥7 is left out, so your left-hand opponent pays the ♠A; "
                    "in Guandan you may give back any card — even the ♥K."
                ),
            ),
        ),
        Section(
            "settle",
            _("How a deal is settled"),
            (
                _(
                    "The 1st player's team rises 3 levels with 1st and 2nd, 2 with 1st and 3rd, "
                    "1 with 1st and last. A team at A wins the match by coming 1st with its "
                    "partner 2nd or 3rd in a deal played at its A; after three failed attempts "
                    "it drops back to 2."
                ),
            ),
        ),
    ),
)

HONGER = Guide(
    "honger",
    _("Red Two (南平红二)"),
    _("Nanping's game of hidden partners: the two players holding the ♥2s play together."),
    (
        Section(
            "table",
            _("The table and the sides"),
            (
                _(
                    "Four players, two packs without jokers, 26 cards each. The 2 is the highest "
                    "card. The two players holding a ♥2 are partners — nobody knows who until a "
                    "♥2 is played."
                ),
                _(
                    "A player dealt both ♥2s plays alone against three, or surrenders, or "
                    "compares bombs; the table shows who is choosing."
                ),
            ),
        ),
        Section(
            "combos",
            _("Combinations"),
            (
                _(
                    "Singles, pairs, triples, two or more pairs in a row, two or more triples in "
                    "a row (no 2 in a chain), and bombs of four to eight cards. There are no "
                    "straights and no full houses."
                ),
            ),
            "combos",
        ),
        Section(
            "bombs",
            _("Bombs"),
            (_("A bomb with more cards beats one with fewer; equal sizes compare by rank."),),
            "honger_bombs",
            (_("The 2 beats the A, and five 3s beat four 2s."),),
        ),
        Section(
            "play",
            _("Tricks and 接风"),
            (
                _(
                    "Beat the play standing or pass. When a player goes out and everyone passes, "
                    "the next player in turn leads — not the partner. The deal ends when one "
                    "side is out or only one player holds cards."
                ),
            ),
        ),
        Section(
            "settle",
            _("Scoring"),
            (
                _(
                    "Points, not levels. With 1st and 2nd each winner takes 2 units from a "
                    "loser, with 1st and 3rd 1 unit, with 1st and last nobody scores; every bomb "
                    "from 2222 up doubles the stake (番). A solo player who comes 1st takes 3 "
                    "units from each opponent."
                ),
            ),
        ),
    ),
)

SHUANGKOU = Guide(
    "shuangkou2",
    _("Shuangkou for two (二人双扣)"),
    _("Head to head with half of two packs: jokers are wild and bombs are counted in lines."),
    (
        Section(
            "table",
            _("The table"),
            (
                _(
                    "Two players, 27 cards each from two packs; the rest is out of play. The "
                    "card order is 3 … K A 2, then the jokers. The jokers are wild: in a "
                    "combination each may stand for any card from 3 to 2."
                ),
            ),
        ),
        Section(
            "combos",
            _("Combinations"),
            (
                _(
                    "Singles, pairs, triples, straights of five or more, three or more pairs in "
                    "a row, three or more triples in a row, bombs of four or more, chain bombs "
                    "and bombs of three or four jokers."
                ),
            ),
            "combos",
        ),
        Section(
            "bombs",
            _("Bombs and lines"),
            (
                _(
                    "A bomb of X cards is worth X lines; a chain bomb adds its length to its "
                    "smallest count. More lines win; with equal lines fewer cards win."
                ),
            ),
            "shuangkou_lines",
            (_("Lines: %(lines)s. Each bomb beats the one before it."),),
        ),
        Section(
            "play",
            _("Play"),
            (
                _(
                    "Beat the play or pass; after a pass the other player leads. The deal ends "
                    "as soon as one player's hand is empty."
                ),
            ),
        ),
        Section(
            "settle",
            _("Scoring"),
            (
                _(
                    "The winner scores the cards the loser has left, doubled for each line "
                    "above 5 in the winner's biggest bomb; bombs of 6 lines or more also earn "
                    "their player points, win or lose."
                ),
            ),
        ),
    ),
)

#: The guides, in the order of the site's game list.
GUIDES: dict[str, Guide] = {g.variant: g for g in (BAO2, GUANDAN, HONGER, SHUANGKOU)}
