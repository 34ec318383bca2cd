"""The hidden-information check: every frame a recipient got holds only what they may know."""

from __future__ import annotations

import re
from collections import Counter

from engine.cards import card_str
from engine.match import Match as EngineMatch

CARD = re.compile(r"^(?:[SHCD][23456789TJQKA]|SB|HR)$")


def card_tokens(data, skip_hand=False):
    """Every card string in a JSON value (optionally without a top-level obs 'hand')."""
    if isinstance(data, str):
        if CARD.match(data):
            yield data
    elif isinstance(data, list):
        for item in data:
            yield from card_tokens(item)
    elif isinstance(data, dict):
        for key, value in data.items():
            if skip_hand and key == "hand":
                continue
            yield from card_tokens(value, skip_hand=False)


#: Observation fields every recipient sees alike: public facts (who holds initiative — everyone
#: saw the trick won —, who is stuck or suspended, the marked card, the limits, the levels,
#: the last deal's summary with its breakdown, the past tricks under ``show_history``). Equal
#: for every seat and the spectators, so none of them can carry anything of one seat's hand.
PUBLIC_FIELDS = (
    "initiative",
    "stuck",
    "suspended",
    "marked_card",
    "a_attempts",
    "base",
    "levels",
    "attempts",
    "previous",
    "finished",
    "trick",
    "match",
    "history",
)

#: The fields of a referee's sanction as every recipient gets it.
SANCTION_FIELDS = {"sanction", "target", "reason"}


def check_public_fields(engine, seats):
    """The public fields are the same for every seat and the spectators; ``counts`` and
    ``askable`` too but for the viewer's own seat; a seat's count may be asked exactly while
    it holds 7 to 10 cards not yet told (never above 10); the marked card is the one the
    rules turn face up. Returns the marked card (or None)."""
    deal = engine.deal
    views = {r: engine.observation(r) for r in [None, *range(seats)]}
    spectator = views[None]
    for r, obs in views.items():
        for key in PUBLIC_FIELDS:
            assert obs.get(key) == spectator.get(key), (r, key)
        for s in range(seats):
            if s == r:
                assert obs["askable"][s] is False
                continue
            assert obs["counts"][s] == spectator["counts"][s], (r, s)
            assert obs["askable"][s] == spectator["askable"][s], (r, s)
    asking = deal.phase in ("play", "immune")
    for s in range(seats):
        size = deal.sizes[s]
        told = size <= 6 or (deal.revealed[s] and size <= 10)
        assert spectator["counts"][s] == (size if told else None), s
        assert spectator["askable"][s] == (asking and 7 <= size <= 10 and not told), s
    marked = spectator.get("marked_card")
    if marked is not None:
        expected = deal.extra.get("marked_card")
        if expected is None and engine.deal_no == 0 and engine.marked_card is not None:
            expected = card_str(engine.marked_card)
        assert marked == expected, "a marked card the rules did not turn face up"
    return marked


def check_frames(variant, seed, options, actions, frames):
    """``actions``: the event log's actions in seq order; ``frames``: {recipient: [frame]}
    (recipient = seat or None). Raises AssertionError on any leak; returns frames checked."""
    from matches.selectors import level_names

    engine = EngineMatch.new(variant, seed, options)
    history = bool(engine.options.get("show_history"))
    recipients = list(frames)
    sanctions: dict[int, dict] = {}  # seq: the referee's event, as the first recipient got it
    states = []  # per version: obs, true hands, public faces, faces held

    public: set[str] = set()
    returns: list[str] = []
    held = {r: set() for r in recipients}
    deal_no = engine.deal_no

    def snapshot():
        marked = check_public_fields(engine, len(engine.deal.sizes))
        if marked is not None:
            public.add(marked)  # dealt face up (明牌): everyone saw it
        hands = {}
        for r in recipients:
            if r is None:
                continue
            hand = Counter()
            for c, k in enumerate(engine.deal.hands[r]):
                if k:
                    hand[card_str(c)] += k
            hands[r] = hand
            held[r].update(hand)
        return {
            "obs": {r: engine.observation(r) for r in recipients},
            "hands": hands,
            "public": set(public),
            "held": {r: set(held[r]) for r in recipients},
        }

    states.append(snapshot())
    for action in actions:
        before = engine.deal_no
        act = engine.apply(action)
        if act.kind in ("play", "immune", "tribute"):
            public.update(card_str(c) for c in act.cards)
        if act.kind == "return":
            returns.append(card_str(act.cards[0]))
            if engine.deal.phase not in ("tribute", "return"):
                public.update(returns)  # every return is in: they are shown (十一.3)
        if engine.deal_no != before or engine.deal_no != deal_no:
            deal_no = engine.deal_no
            public = set()
            returns = []
            for r in recipients:
                held[r] = set()
        states.append(snapshot())

    checked = 0
    for r, received in frames.items():
        level = None  # the level of the last "cards" this recipient got
        for frame in received:
            version = frame.get("version", -1)
            if frame.get("type") in ("update", "snapshot", "events"):
                state = states[version]
                assert frame["you"] == r
                assert frame["obs"] == state["obs"][r], (r, version)
                # past tricks only at a table that shows them (competition rules 八.7)
                assert ("history" in frame["obs"]) == history, (r, version)
                if r is None:
                    assert "hand" not in frame["obs"]
                else:
                    assert Counter(frame["obs"]["hand"]) == state["hands"][r]
                allowed = state["public"] | state["held"][r]
                # an event may show the cards of the action that led to this state
                for event in [frame.get("event"), *(frame.get("events") or [])]:
                    if event:
                        allowed = allowed | set(card_tokens(event["action"]))
                        action = event["action"]
                        if "return" in action and action["return"] is not None:
                            assert event["seat"] == r, "a returned card shown to another seat"
                        if event["actor"] == "referee":
                            # a sanction: which, whom, why — the same for everyone
                            assert set(action) == SANCTION_FIELDS, action
                            assert sanctions.setdefault(event["seq"], event) == event
                # "cards" names the wild card of the level (public) for sorting the hand, and
                # the variant's team level names (public)
                # ("cards" comes in every snapshot, and in an update when the level changed)
                public_frame = {k: v for k, v in frame.items() if k != "cards"}
                if "cards" in frame:
                    assert set(frame["cards"]) == {"value", "wild", "levels"}
                    assert frame["cards"]["levels"] == [list(n) for n in level_names(variant)]
                    level = frame["obs"].get("level")
                else:
                    assert frame["type"] == "update"
                    assert frame["obs"].get("level") == level, "cards of another level kept"
                leaked = [t for t in card_tokens(public_frame, skip_hand=True) if t not in allowed]
                assert not leaked, (r, version, leaked)
                checked += 1
            elif frame.get("type") in ("hints", "checked"):
                own = states[version]["held"][r]
                assert set(card_tokens(frame)) <= own, frame
            else:
                assert not list(card_tokens(frame)), frame
    return checked


def check_sibling_refusal(frames):
    """The frames a player of one sibling table got from another sibling's websocket (the
    tables of a team fixture, dealt from one seed): one ``refused`` frame with the code
    ``sibling_table``, and not one card in anything they got (every card there would be a
    card of the same seat at their own table). Raises AssertionError; returns None."""
    assert frames, "no answer from the sibling's socket"
    assert frames[0].get("type") == "refused" and frames[0].get("code") == "sibling_table", frames
    for frame in frames:
        assert frame.get("type") not in ("snapshot", "update", "events"), frame
        assert not list(card_tokens(frame)), frame
