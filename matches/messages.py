"""Translated words for reason codes: the engine's refusals and the platform's own.

A refusal sent to a player carries its ``code`` (stable, machine-readable) and a ``message``
in the player's language (:func:`refusal_message`). Simplified Chinese first, English second.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

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
    "invalid_ask": _("You can only ask the count of another player holding 7 to 10 cards."),
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
    "seat_taken": _("That seat is taken."),
    "no_such_seat": _("There is no such seat."),
    "already_seated": _("You already have a seat at this table."),
    "not_seated": _("You do not sit at this table."),
    "table_not_open": _("This table no longer takes players."),
    "bad_options": _("Those table options are not valid."),
    "bad_variant": _("Unknown game."),
    "rated_bots": _("A rated table is for people only: bots cannot sit there."),
    "no_selection": _("Select some cards first."),
}


def refusal_message(code: str, detail: str = "") -> str:
    """The message for a reason code in the active language (``detail`` when unknown)."""
    message = REASONS.get(code)
    if message is None:
        return detail or code
    return str(message)
