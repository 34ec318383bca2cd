"""What the table says aloud (issue 43, point 3): one table of translated templates.

The live table (static/js/speech.js) speaks through the browser's own speech synthesis, in
the page's language, from these templates: they reach the page with the table's words
(``TABLE_WORDS``, keys ``say_<kind>``), and :func:`announcement` builds the same text here, so
a test can check every kind in both languages. ``%(name)s`` is the seat as this player sees
it (上家, 对家, 下家, 你); ``%(rank)s`` a rank as it is spoken (:data:`SPOKEN_RANKS`).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

#: Every kind of announcement: an event of the table, and how it is said.
ANNOUNCEMENTS = {
    # whose turn (only this seat's own turn is said: the plays tell the rest)
    "your_turn": _("Your turn"),
    # a play: the seat, then the combo (a combo word below, with its rank where it has one)
    "play": _("%(name)s plays %(combo)s"),
    "pass": _("%(name)s passes"),
    # 报牌: a seat's count told (few cards left)
    "report": _("%(name)s has %(n)s cards left"),
    "report_one": _("%(name)s has one card left"),
    "bao2": _("%(name)s makes Bao 2"),
    "guan2": _("The 2s are shut in"),
    "tribute": _("%(name)s gives a tribute"),
    "deal_over": _("The deal is over"),
    "match_over": _("The match is over"),
}

#: How each combo is said in a play (``%(rank)s`` where the combo has a rank).
SPOKEN_COMBOS = {
    "single": pgettext_lazy("spoken", "single %(rank)s"),
    "pair": pgettext_lazy("spoken", "pair of %(rank)s"),
    "triple": pgettext_lazy("spoken", "three %(rank)s"),
    "full_house": pgettext_lazy("spoken", "full house"),
    "straight": pgettext_lazy("spoken", "straight"),
    "pair_chain": pgettext_lazy("spoken", "pairs in a row"),
    "triple_chain": pgettext_lazy("spoken", "triples in a row"),
    "bomb": pgettext_lazy("spoken", "bomb"),
    "straight_flush": pgettext_lazy("spoken", "straight flush"),
    "joker_bomb": pgettext_lazy("spoken", "joker bomb"),
    "dragon": pgettext_lazy("spoken", "dragon"),
    "supreme": pgettext_lazy("spoken", "supreme bomb"),
    "two_bomb": pgettext_lazy("spoken", "bomb of twos"),
    "immune": pgettext_lazy("spoken", "immune bomb"),
    "chain_bomb": pgettext_lazy("spoken", "chain bomb"),
    "joker3": pgettext_lazy("spoken", "three jokers"),
    "joker4": pgettext_lazy("spoken", "four jokers"),
}

#: Ranks as they are said (the engine's rank names).
SPOKEN_RANKS = {
    **{r: r for r in "3456789JQKA"},
    "2": pgettext_lazy("spoken", "two"),
    "T": pgettext_lazy("spoken", "ten"),
    "SB": pgettext_lazy("spoken", "small joker"),
    "HR": pgettext_lazy("spoken", "big joker"),
}


#: The table's words of the settings panel (speech.js) and of its moments (moments.js).
PANEL_WORDS = {
    "settings": _("Settings"),
    "setting_attention": _("Alert at my turn"),
    "setting_sound": _("Sounds"),
    "setting_voice": _("Voice"),
    "setting_vibrate": _("Vibration"),
    "setting_on": _("On"),
    "setting_off": _("Off"),
    "play_again": _("Play again"),
    "replay_link": _("Watch the replay"),
    "away_title": _("While you were away, auto-play:"),
    "away_plays": _("played"),
    "away_passes": _("passed %(n)s times"),
    "away_tribute": _("gave as tribute"),
    "away_return": _("returned"),
    "bot_thinking": _("thinking"),
    # the replay's auto-play (static/js/replay.js gets the table's words too)
    "replay_start": _("Play the replay"),
    "replay_pause": _("Pause"),
    "replay_resume": _("Resume"),
    "replay_speed": _("Speed"),
    "replay_slow": _("Slow"),
    "replay_medium": _("Medium"),
    "replay_fast": _("Fast"),
}


def spoken_words() -> dict[str, object]:
    """The templates as the page gets them (lazy: translated when the page is built):
    ``say_<kind>``, ``say_combo_<type>``, ``say_rank_<rank>``, and the words of the settings
    panel and of the table's moments (:data:`PANEL_WORDS`)."""
    out: dict[str, object] = dict(PANEL_WORDS)
    out.update({f"say_{k}": v for k, v in ANNOUNCEMENTS.items()})
    out.update({f"say_combo_{k}": v for k, v in SPOKEN_COMBOS.items()})
    out.update({f"say_rank_{k}": v for k, v in SPOKEN_RANKS.items()})
    return out


def spoken_combo(type: str, rank: str | None = None) -> str:
    """A combo as it is said in the active language (``rank``: the engine's rank name)."""
    template = SPOKEN_COMBOS.get(type)
    if template is None:
        return ""
    said = str(SPOKEN_RANKS.get(rank or "", rank or ""))
    return (str(template) % {"rank": said}).strip()


def announcement(kind: str, **values: object) -> str:
    """The text said for one event ``kind`` in the active language (as speech.js builds it).

    ``values``: ``name`` (the seat as this player sees it), ``n`` (a count), and for a play
    ``type`` and ``rank`` (the combo). An unknown kind raises ``KeyError``.
    """
    template = str(ANNOUNCEMENTS[kind])
    if kind == "play":
        values = {**values, "combo": spoken_combo(str(values.get("type", "")), values.get("rank"))}  # type: ignore[arg-type]
    return " ".join((template % {k: str(v) for k, v in values.items()}).split())
