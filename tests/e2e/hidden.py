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


def check_frames(variant, seed, options, actions, frames):
    """``actions``: the event log's actions in seq order; ``frames``: {recipient: [frame]}
    (recipient = seat or None). Raises AssertionError on any leak; returns frames checked."""
    from matches.selectors import level_names

    engine = EngineMatch.new(variant, seed, options)
    recipients = list(frames)
    states = []  # per version: obs, true hands, public faces, faces held

    public: set[str] = set()
    returns: list[str] = []
    held = {r: set() for r in recipients}
    deal_no = engine.deal_no

    def snapshot():
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
