"""Translated words for reason codes: the engine's refusals and the platform's own.

A refusal sent to a player carries its ``code`` (stable, machine-readable) and a ``message``
in the player's language (:func:`refusal_message`). Simplified Chinese first, English second.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from engine.match import OptionError
from games.errors import Refused
from games.options import option_problem
from matches.announcements import spoken_words

REASONS = {
    # the rules engine (engine.actions)
    "wrong_phase": _("That action does not belong to this phase of the deal."),
    "not_your_turn": _("It is not your turn."),
    "not_in_hand": _("You do not hold those cards."),
    "invalid_combo": _("Those cards do not make that combination."),
    "needs_initiative": _("You need the initiative to play a natural 2 (little 2 rule)."),
    "does_not_beat": _("That play does not beat the cards on the table."),
    "must_lead": _("You lead this trick: you cannot pass."),
    "invalid_tribute": _("That card cannot be given as tribute."),
    "invalid_return": _("That card cannot be returned."),
    "invalid_action": _("That is not a valid action."),
    "invalid_card": _("Unknown card."),
    "invalid_ask": _("That card count cannot be asked now."),
    "match_over": _("The match is over."),
    # the platform
    "stale": _("The table has moved on since you acted; here is the current state."),
    "not_your_seat": _("You can only act for your own seat."),
    "spectator": _("Spectators cannot act."),
    "not_started": _("The match has not started yet."),
    "bad_json": _("The message was not valid JSON."),
    "bad_message": _("The message is not understood."),
    "unknown_type": _("Unknown message type."),
    "too_large": _("The message is too large."),
    "rate_limited": _("Too many messages; slow down."),
    "not_member": _("Only members of the club can do that."),
    "not_allowed": _("You are not allowed to do that."),
    "no_spectators": _("This table does not allow spectators."),
    "login_required": _("Please log in first."),
    "members_only": _("Only the club's members can see this."),
    "seat_taken": _("That seat is taken."),
    "no_such_seat": _("There is no such seat."),
    "already_seated": _("You already have a seat at this table."),
    "not_seated": _("You do not sit at this table."),
    "table_not_open": _("This table no longer takes players."),
    "bad_options": _("Those table options are not valid."),
    "bad_variant": _("Unknown game."),
    "rated_bots": _("A rated table is for people only: bots cannot sit there."),
    "no_selection": _("Select some cards first."),
    "history_rated": _("Played cards cannot be shown at a rated table."),
    "history_competition": _(
        "Played cards cannot be shown at a tournament or league table (competition rules 八.7)."
    ),
    "not_invited": _("Only the people invited to this table can sit there."),
    "not_referee": _("Only a referee of this table can apply sanctions."),
    "bad_sanction": _("That sanction does not exist in this game."),
    "reason_required": _("Give the reason for the sanction (at most 200 characters)."),
    "sibling_table": _(
        "You play at a table with the same deals: you cannot watch or referee this one."
    ),
    "siblings_playing": _(
        "This replay opens when every table playing the same deals has finished."
    ),
}


def refusal_message(code: str, detail: str = "") -> str:
    """The message for a reason code in the active language (``detail`` when unknown)."""
    message = REASONS.get(code)
    if message is None:
        return detail or code
    return str(message)


class MatchError(Refused):
    """A refused table or match operation: a reason ``code`` and a translated message."""

    def __init__(self, code: str, detail: str = "", option: OptionError | None = None) -> None:
        """Keep the reason code; ``detail`` is the engine's English wording, if any;
        ``option`` the engine's refusal of a match option, said in the reader's words."""
        # Not Refused.__init__: the message is translated when it is read (in the language
        # active then, e.g. the consumer's), so it is a property and is not stored.
        Exception.__init__(self, f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail
        self.option = option

    @property
    def message(self) -> str:  # type: ignore[override]  # translated when read
        """The reason in the active language."""
        if self.option is not None:
            return option_problem(self.option)
        return refusal_message(self.code, self.detail)

    def to_json(self) -> dict[str, str]:
        """``{"code", "message"}`` in the active language."""
        return {"code": self.code, "message": self.message}


#: The referee sanctions (engine.actions.SANCTIONS), as the table and the replay name them.
SANCTION_LABELS = {
    "revoke_initiative": _("Initiative revoked"),
    "suspend_follow": _("No following this round"),
    "yellow": _("Yellow card"),
    "red": _("Red card"),
    "forfeit": _("Match forfeited"),
}

#: Words of the table page (static/js/table.js), sent translated with the page.
TABLE_WORDS = {
    **{f"sanction_{key}": label for key, label in SANCTION_LABELS.items()},
    # what the table says aloud (matches.announcements, static/js/speech.js)
    **spoken_words(),
    "referee": _("Referee"),
    "sanction_against": _("Referee: %(sanction)s for %(name)s. Reason: %(reason)s"),
    "sanction_drop": _("%(team)s level: %(from)s → %(to)s"),
    "play": _("Play"),
    "pass": _("Pass"),
    "hint": _("Hint"),
    "clear": _("Clear"),
    "autoplay_on": _("Let the computer play"),
    "autoplay_off": _("I am back: stop auto-play"),
    "autoplay": _("Auto-play"),
    "bot": _("Bot"),
    "you": _("You"),
    "partner": _("Partner"),
    "left": _("Left"),
    "right": _("Right"),
    "opponent": _("Opponent"),
    "your_turn": _("Your turn"),
    "waiting_for": _("Waiting for %(name)s"),
    "lead": _("You lead"),
    "level": _("Level card"),
    "levels": _("Levels"),
    "level_round": _("%(rank)s (round %(n)s)"),
    "team": _("Team %(n)s"),
    "level_team": _("playing its level"),
    "deal": _("Deal %(n)s"),
    # a deal limit (计副制): "deal 5 of 8"; a tie at the limit of a knockout plays on
    "deal_of": _("Deal %(n)s of %(max)s"),
    "deal_extra": _("Deal %(n)s, extra"),
    "finished": _("Finishing order"),
    # both plural forms of a count the page knows only when it shows it (Chinese has one form,
    # English two): the page takes the first for 1
    "card_one": ngettext_lazy("%(n)s card", "%(n)s cards", 1),
    "cards": ngettext_lazy("%(n)s card", "%(n)s cards", 2),
    "cards_left_one": ngettext_lazy("%(n)s card left", "%(n)s cards left", 1),
    "cards_left": ngettext_lazy("%(n)s card left", "%(n)s cards left", 2),
    "cards_unknown": _("7+ cards"),
    "ask": _("Ask the count"),
    "tribute": _("Tribute"),
    "return": _("Return"),
    "select_tribute": _("Select one card to give as tribute, then Play."),
    "select_return": _("Select one card to return, then Play."),
    "anti_tribute": _("No tribute: the losers hold both big jokers (抗贡)."),
    "tribute_to": _("%(giver)s gives %(card)s to %(receiver)s"),
    "return_to": _("%(giver)s returns %(card)s to %(receiver)s"),
    "immune_window": _("保2 by %(name)s: immune window"),
    "immune_you": _("Play an immune bomb now, or Pass."),
    "immune_wait": _("%(name)s may answer with an immune bomb."),
    "bao2": _("保2!"),
    "guan2": _("关2!"),
    "deal_over": _("Deal over"),
    "match_over": _("Match over"),
    "winner_team": _("Team %(n)s wins"),
    "draw": _("Draw"),
    "points": _("Points"),
    "close": _("Close"),
    "spectator": _("You are watching this table."),
    "connecting": _("Connecting…"),
    "reconnecting": _("Connection lost, reconnecting…"),
    "clock": _("%(s)s s"),
    "time_left": _("Match time left: %(m)s min"),
    "time_up": _("Time is up: this is the last deal."),
    "trick": _("On the table"),
    "empty_trick": _("Nobody has played yet in this trick."),
    "choose_type": _("These cards can be played as:"),
    "selected_ok": _("Ready to play: %(type)s"),
    "choose_solo": _("Play alone"),
    "choose_surrender": _("Surrender"),
    "choose_compare": _("Compare bombs"),
    "phase_choose": _("Choose how to play this deal."),
    "history": _("Last plays"),
    "new_deal": _("A new deal starts."),
    "reason_last_level": _("a team passed its last level"),
    "reason_time": _("the time limit"),
    "reason_deals": _("the deal limit"),
    "reason_forfeit": _("forfeit"),
    "single": _("single"),
    "pair": _("pair"),
    "triple": _("triple"),
    "full_house": _("full house"),
    "straight": _("straight"),
    "pair_chain": _("pair chain"),
    "triple_chain": _("triple chain"),
    "bomb": _("bomb"),
    "straight_flush": _("straight flush"),
    "joker_bomb": _("joker bomb"),
    "dragon": _("dragon"),
    "supreme": _("supreme bomb"),
    "two_bomb": _("bomb of 2s"),
    "immune": _("immune bomb"),
    "chain_bomb": _("chain bomb"),
    "joker3": _("three jokers"),
    "joker4": _("four jokers"),
}
