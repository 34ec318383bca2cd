"""Partner invitations: a member who enters one of a club's events as a pair names a partner,
who must accept. One flow for every kind of event (a tournament, a league season); each kind
supplies its specifics by subclassing :class:`PartnerInvitations`.

The flow: the entry is *pending* (not paired or drawn, not in the standings) until the partner
answers, by :meth:`PartnerInvitations.answer_by`. Only the named partner answers (not the player
who asked, not an organiser). Accepting enters the pair; declining, withdrawing or letting the
invitation lapse removes the entry (it never played), so both players are free to enter again,
with anyone; each player concerned is told (but the one who acted).

It lives in ``clubs`` (the lowest layer that knows members) so that tournaments and leagues
share it without importing each other; it imports nothing of theirs."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Generic, TypeVar

from django.db import models, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import User
from games.errors import Refused

#: How long a named partner has to answer (never past the event's own limits: see
#: :meth:`PartnerInvitations.answer_limits`).
PARTNER_ANSWER = timedelta(hours=48)

#: Why a pending entry is removed: the partner ``declined``, a player or an organiser
#: ``withdrawn`` it, or it ``lapsed`` without an answer.
CLOSED_REASONS = ("declined", "withdrawn", "lapsed")

Entry = TypeVar("Entry", bound=models.Model)
Event = TypeVar("Event", bound=models.Model)


class PartnerInvitations(ABC, Generic[Event, Entry]):
    """The partner-invitation flow of one kind of event. A subclass names the entry model and
    its event field and supplies what differs: how the event is locked, when an invitation
    lapses, what accepting does, what the players are told and which refusals are raised.

    The entry model has ``player1`` (who asked), ``player2`` (the partner) and ``answer_by``."""

    #: The entry model of this kind of event.
    entry_model: type[Entry]
    #: The name of the entry's foreign key to its event (``tournament``, ``season``).
    event_field: str

    # -- what each kind of event supplies ------------------------------------------------

    @abstractmethod
    def pending_entries(self) -> QuerySet[Entry]:
        """Every pending entry, of every event of this kind."""

    @abstractmethod
    def is_pending(self, entry: Entry) -> bool:
        """Whether ``entry`` (as stored) waits for its partner's answer."""

    @abstractmethod
    def lock_event(self, event_id: int) -> Event:
        """The event read again and locked for the caller's transaction (entries of one event
        change one at a time)."""

    @abstractmethod
    def answer_limits(self, event: Event) -> Iterable[datetime | None]:
        """The times an answer must come before, when they are still ahead (e.g. the close of
        registration, the first round)."""

    @abstractmethod
    def lapsed(self, entry: Entry, event: Event, now: datetime) -> bool:
        """Whether the pending ``entry`` can no longer be accepted at ``now``."""

    @abstractmethod
    def accepted(self, entry: Entry, event: Event, now: datetime) -> None:
        """Enter the pair whose partner accepted (save the entry, no longer pending) and tell
        its players; may refuse (the transaction then changes nothing)."""

    @abstractmethod
    def notify_invited(self, entry: Entry) -> None:
        """Ask the partner of the new pending ``entry`` to answer by ``entry.answer_by``."""

    @abstractmethod
    def notify_closed(self, entry: Entry, why: str, actor: User | None) -> None:
        """Tell the players of the removed pending ``entry``, but ``actor``, why (one of
        :data:`CLOSED_REASONS`) and that they may enter again."""

    @abstractmethod
    def refuse(self, code: str, message: str) -> Refused:
        """The event kind's refusal (to raise) with ``code`` and the translated ``message``."""

    @abstractmethod
    def not_allowed(self) -> Refused:
        """The event kind's refusal of an action the user may not take (HTTP 403)."""

    def removed(self, entry: Entry) -> None:
        """Mark the in-memory ``entry`` just deleted as the event kind shows a removed pending
        entry (by default nothing)."""

    # -- the flow ------------------------------------------------------------------------

    def answer_by(self, event: Event, now: datetime) -> datetime:
        """When an invitation made at ``now`` lapses: :data:`PARTNER_ANSWER` later, but at the
        latest at the first of :meth:`answer_limits` still ahead (an answer after it would
        come too late to play)."""
        by = now + PARTNER_ANSWER
        for limit in self.answer_limits(event):
            if limit is not None and limit > now:
                by = min(by, limit)
        return by

    def invited(self, entry: Entry) -> None:
        """The pending ``entry`` is written (with its ``answer_by``): ask its partner."""
        self.notify_invited(entry)

    def event_id(self, entry: Entry) -> int:
        """The id of ``entry``'s event."""
        return getattr(entry, f"{self.event_field}_id")

    def invitation_of(self, user: User | None, event: Event) -> Entry | None:
        """The pending entry of ``event`` that names ``user`` as the partner (at most one)."""
        if user is None or not user.is_authenticated:
            return None
        return (
            self.pending_entries()
            .filter(**{self.event_field: event}, player2_id=user.pk)
            .order_by("pk")
            .first()
        )

    def remove(self, entry: Entry, why: str, actor: User | None = None) -> None:
        """Remove a pending entry (it never played) and tell its players, but ``actor``, why
        (one of :data:`CLOSED_REASONS`)."""
        self.notify_closed(entry, why, actor)
        entry.delete()
        self.removed(entry)

    def withdraw(self, user: User, entry: Entry) -> Entry:
        """Withdraw the pending ``entry`` for ``user`` (the caller checked they may): it is
        removed, the partner's withdrawal told as declined."""
        self.remove(entry, "declined" if user.pk == partner_id(entry) else "withdrawn", user)
        return entry

    def remove_lapsed(self, event: Event, user_ids: Sequence[int], now: datetime) -> int:
        """Remove the lapsed pending entries of ``event`` naming any of ``user_ids`` (before
        they enter again: beat may not have come yet). Returns how many were removed."""
        removed = 0
        mine = self.pending_entries().filter(**{self.event_field: event})
        for entry in mine.filter(Q(player1_id__in=user_ids) | Q(player2_id__in=user_ids)):
            if self.lapsed(entry, event, now):
                self.remove(entry, "lapsed")
                removed += 1
        return removed

    @transaction.atomic
    def answer(
        self, user: User, entry: Entry, *, accept: bool, now: datetime | None = None
    ) -> Entry:
        """Accept or decline the invitation to play as ``entry``'s partner. Only the named
        partner may answer (else :meth:`not_allowed`); an entry no longer pending refuses
        ``no_invitation``. Declining removes the entry (both are free again) and tells the
        player who asked; accepting a lapsed invitation refuses ``invitation_lapsed``, else
        :meth:`accepted` enters the pair. A refusal changes nothing."""
        now = now or timezone.now()
        event = self.lock_event(self.event_id(entry))
        stored = self.entry_model._default_manager.select_for_update().filter(pk=entry.pk).first()
        if stored is None:  # removed meanwhile (declined, withdrawn or lapsed)
            raise self.refuse("no_invitation", _("No invitation waits for your answer."))
        if partner_id(stored) != user.pk:
            raise self.not_allowed()
        if not self.is_pending(stored):
            raise self.refuse("no_invitation", _("No invitation waits for your answer."))
        if not accept:
            self.remove(stored, "declined", user)
            return stored
        if self.lapsed(stored, event, now):
            raise self.refuse("invitation_lapsed", _("This invitation has lapsed."))
        self.accepted(stored, event, now)
        return stored

    def expire(self, now: datetime | None = None) -> int:
        """Remove every pending entry whose invitation has lapsed by ``now`` and tell both
        players (beat), each in its own transaction. Returns how many were removed."""
        now = now or timezone.now()
        removed = 0
        due = self.pending_entries().filter(answer_by__lte=now)
        for pk, event_id in due.values_list("pk", f"{self.event_field}_id"):
            with transaction.atomic():
                event = self.lock_event(event_id)
                entry = self.pending_entries().select_for_update().filter(pk=pk).first()
                if entry is not None and self.lapsed(entry, event, now):
                    self.remove(entry, "lapsed")
                    removed += 1
        return removed


def partner_id(entry: models.Model) -> int | None:
    """The id of the partner ``entry`` names (``player2``; None for a single player)."""
    return getattr(entry, "player2_id", None)
