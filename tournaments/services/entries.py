"""Entries: players register, check in and withdraw; an organiser may do each for any player.

A player who registers a pair names a partner, who must accept: the entry is pending (not
paired, not in the standings) until then. A declined, lapsed or withdrawn invitation removes
the entry, so both players are free to register again, with anyone. An organiser who registers
two other players registers them at once (they asked the organiser)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Max, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import partners
from clubs.models import User
from ladder.models import Ladder, Rating
from tournaments import notifications, selectors
from tournaments.models import (
    ACTIVE_STATUSES,
    KNOCKOUT_FORMATS,
    Entry,
    EntryStatus,
    Game,
    GameStatus,
    Round,
    RoundStatus,
    Tournament,
    TournamentFormat,
    TournamentStatus,
    UnitKind,
    WithdrawalRule,
)
from tournaments.permissions import can_manage
from tournaments.services import eligibility
from tournaments.services.errors import TournamentError, not_allowed
from tournaments.services.forfeits import forfeit_withdrawn
from tournaments.services.places import fill_places, new_status
from tournaments.services.rounds import create_round
from tournaments.services.setup import locked
from tournaments.services.withdrawals import round_robin_rule
from tournaments.windows import checkin_open, registration_open

#: How long a named partner has to answer (never past the close of registration or the start).
PARTNER_ANSWER = partners.PARTNER_ANSWER


class TournamentPartners(partners.PartnerInvitations[Tournament, Entry]):
    """The partner-invitation flow (:mod:`clubs.partners`) of tournaments: a pending entry has
    the status ``pending``; the answer is due before registration closes or the tournament
    starts; accepting registers the pair; the players are told by a notice and an e-mail."""

    entry_model = Entry
    event_field = "tournament"

    def pending_entries(self) -> QuerySet[Entry]:
        """Entries with the status ``pending``."""
        return Entry.objects.filter(status=EntryStatus.PENDING)

    def is_pending(self, entry: Entry) -> bool:
        """Whether the entry's status is ``pending``."""
        return entry.status == EntryStatus.PENDING

    def lock_event(self, event_id: int) -> Tournament:
        """The tournament locked (see :func:`tournaments.services.setup.locked`)."""
        return locked(Tournament(pk=event_id))

    def answer_limits(self, event: Tournament) -> list[datetime | None]:
        """The close of registration and the start (an answer after it is too late for
        round 1)."""
        return [event.registration_closes, event.starts_at]

    def lapsed(self, entry: Entry, event: Tournament, now: datetime) -> bool:
        """Its time is up, the tournament is over, or rounds are paired and late registration
        is closed."""
        return (
            entry.answer_by is None
            or now >= entry.answer_by
            or event.status not in ACTIVE_STATUSES
            or (event.rounds.exists() and not registration_open(event, now))
        )

    def accepted(self, entry: Entry, event: Tournament, now: datetime) -> None:
        """Register the pair; confirm to the player who registered it and to the partner."""
        entry.status = new_status(event)  # over the cap: it waits
        entry.answer_by = None
        entry.save(update_fields=["status", "answer_by"])
        notifications.notify_accepted(entry)  # the registering player's confirmation
        if entry.status == EntryStatus.WAITING:
            notifications.notify_waiting(entry)
        else:
            notifications.notify_registered(entry, [entry.player2])

    def notify_invited(self, entry: Entry) -> None:
        """A notice and an e-mail to the partner."""
        notifications.notify_invited(entry)

    def notify_closed(self, entry: Entry, why: str, actor: User | None) -> None:
        """A notice and an e-mail to each player but ``actor``."""
        notifications.notify_invitation_closed(entry, why, actor)

    def refuse(self, code: str, message: str) -> TournamentError:
        """A :class:`TournamentError`."""
        return TournamentError(code, message)

    def not_allowed(self) -> TournamentError:
        """See :func:`tournaments.services.errors.not_allowed`."""
        return not_allowed()

    def removed(self, entry: Entry) -> None:
        """A removed pending entry reads as withdrawn (the API answers it so)."""
        entry.status = EntryStatus.WITHDRAWN


#: The tournaments' partner invitations.
PARTNERS = TournamentPartners()


def entry_of(user: User | None, tournament: Tournament) -> Entry | None:
    """The user's entry in the tournament (as a player or partner): the active one, else the
    latest withdrawn one."""
    if user is None or not user.is_authenticated:
        return None
    mine = tournament.entries.filter(Q(player1=user) | Q(player2=user))
    return (
        mine.exclude(status=EntryStatus.WITHDRAWN).first()
        or mine.order_by("-withdrawn_at", "-id").first()
    )


def _has_games(entry: Entry) -> bool:
    games = Game.objects.filter(round__tournament_id=entry.tournament_id).only("side0", "side1")
    return any(entry.pk in game.side0 + game.side1 for game in games)


def _free_for_entry(person: User, tournament: Tournament, now: datetime) -> None:
    """Refuse a player who has an active entry or an invitation waiting for an answer; a
    withdrawn entry of theirs that never played, or a lapsed invitation, is removed, so they
    can register again, alone or with someone else."""
    PARTNERS.remove_lapsed(tournament, [person.pk], now)
    for entry in tournament.entries.filter(Q(player1=person) | Q(player2=person)):
        if entry.status == EntryStatus.PENDING:
            if entry.player2_id == person.pk:
                raise TournamentError(
                    "invitation_pending",
                    _("%(name)s has a partner invitation waiting for an answer.")
                    % {"name": person.name},
                )
        if entry.status != EntryStatus.WITHDRAWN:
            raise TournamentError(
                "already_registered",
                _("%(name)s is already registered.") % {"name": person.name},
            )
        if not _has_games(entry):
            entry.delete()
        elif entry.player1_id == person.pk:
            raise TournamentError(
                "withdrawn_played",
                _("%(name)s has withdrawn after playing: an organiser can reinstate the entry.")
                % {"name": person.name},
            )


@transaction.atomic
def register(
    user: User,
    tournament: Tournament,
    *,
    partner: User | None = None,
    player: User | None = None,
    team: str = "",
    now: datetime | None = None,
) -> Entry:
    """Register ``user`` (or, for an organiser, ``player``) with ``partner`` for a pair event.

    Both players must be club members without an active entry or an invitation waiting for an
    answer (a withdrawn entry that never played is replaced); the window must be open (an
    organiser may register outside it until the tournament is over). A player who names a
    partner gets a pending entry and the partner an invitation (a notice and an e-mail) to
    accept by :meth:`TournamentPartners.answer_by`; an organiser registering two other players registers them at
    once."""
    tournament = locked(tournament)
    now = now or timezone.now()
    manager = can_manage(user, tournament)
    if player is not None and player != user and not manager:
        raise not_allowed()
    player = player or user
    if not manager and not registration_open(tournament, now):
        raise TournamentError("registration_closed", _("Registration is not open."))
    if tournament.status not in ACTIVE_STATUSES:
        raise TournamentError("registration_closed", _("Registration is not open."))
    if tournament.unit_kind == UnitKind.PAIR and partner is None:
        raise TournamentError("partner_needed", _("A pair event needs your partner."))
    if tournament.unit_kind != UnitKind.PAIR and partner is not None:
        raise TournamentError("no_partner", _("This event is played without a fixed partner."))
    people = [player] + ([partner] if partner else [])
    if partner is not None and partner.pk == player.pk:
        raise TournamentError("bad_partner", _("Your partner must be someone else."))
    if tournament.team_size:
        raise TournamentError(
            "team_event", _("This is a team event: a team's captain enters the team.")
        )
    # the host's or an invited club's members, meeting the entry conditions (every problem)
    club = eligibility.check_entry(tournament, people)
    if not isinstance(team, str) or len(team) > 60:
        raise TournamentError("bad_team", _("A team name is at most 60 characters."))
    for person in people:
        _free_for_entry(person, tournament, now)
    name = " / ".join(p.name for p in people)
    # after a removed entry the count would repeat a seed: go on from the last one
    seed = (tournament.entries.aggregate(last=Max("seed"))["last"] or 0) + 1
    invited = partner is not None and not (manager and player.pk != user.pk)
    entry = Entry.objects.create(
        tournament=tournament,
        player1=player,
        player2=partner,
        team=team.strip(),
        name=name[:120],
        seed=seed,
        registered_at=now,
        status=EntryStatus.PENDING if invited else new_status(tournament),
        answer_by=PARTNERS.answer_by(tournament, now) if invited else None,
        club=club,
    )
    if invited:
        PARTNERS.invited(entry)
    elif entry.status == EntryStatus.WAITING:
        notifications.notify_waiting(entry)
    else:
        notifications.notify_registered(entry)
    return entry


def invitation_of(user: User | None, tournament: Tournament) -> Entry | None:
    """The pending entry that names ``user`` as the partner (there is at most one)."""
    return PARTNERS.invitation_of(user, tournament)


def answer_invitation(
    user: User,
    tournament: Tournament,
    *,
    accept: bool,
    entry: Entry | None = None,
    now: datetime | None = None,
) -> Entry:
    """Accept or decline the invitation to play as ``entry``'s partner (by default the
    invitation naming ``user``): see :meth:`clubs.partners.PartnerInvitations.answer`.
    Accepting registers the pair; declining removes the entry, so both are free again; either
    answer is told to the player who registered (a notice and an e-mail). A lapsed invitation
    cannot be accepted."""
    entry = invitation_to_answer(user, tournament, entry)
    return PARTNERS.answer(user, entry, accept=accept, now=now)


def invitation_to_answer(user: User, tournament: Tournament, entry: Entry | None) -> Entry:
    """The entry whose invitation ``user`` answers: ``entry`` (refused ``not_registered``
    when it is another tournament's), else the invitation naming ``user`` (refused
    ``no_invitation`` when none waits)."""
    if entry is None:
        entry = invitation_of(user, tournament)
        if entry is None:
            raise TournamentError("no_invitation", _("No invitation waits for your answer."))
    elif entry.tournament_id != tournament.pk:
        raise TournamentError("not_registered", _("This entry is not in the tournament."))
    return entry


def expire_invitations(now: datetime | None = None) -> int:
    """Remove every pending entry whose invitation has lapsed and tell both players (beat).
    Returns how many were removed."""
    return PARTNERS.expire(now)


def _entry_for_action(user: User, tournament: Tournament, entry: Entry | None) -> Entry:
    if entry is None:
        own = entry_of(user, tournament)
        if own is None:
            raise TournamentError("not_registered", _("You are not registered."))
        return own
    if entry.tournament_id != tournament.pk:
        raise TournamentError("not_registered", _("This entry is not in the tournament."))
    if user.pk not in entry.user_ids and not can_manage(user, tournament):
        raise not_allowed()
    return entry


@transaction.atomic
def check_in(
    user: User, tournament: Tournament, entry: Entry | None = None, now: datetime | None = None
) -> Entry:
    """Check in the user's own entry (or, for an organiser, any entry) in the window."""
    tournament = locked(tournament)
    now = now or timezone.now()
    entry = _entry_for_action(user, tournament, entry)
    if entry.status == EntryStatus.WITHDRAWN:
        raise TournamentError("withdrawn", _("This entry has withdrawn."))
    if entry.status == EntryStatus.PENDING:
        raise TournamentError("invitation_pending", _("The partner has not accepted yet."))
    if entry.status == EntryStatus.WAITING:
        raise TournamentError(
            "waiting", _("This entry is on the waiting list: it checks in once it moves up.")
        )
    if not checkin_open(tournament, now) and not can_manage(user, tournament):
        raise TournamentError("checkin_closed", _("Check-in is not open."))
    if entry.status != EntryStatus.CHECKED_IN:
        entry.status = EntryStatus.CHECKED_IN
        entry.checked_in_at = now
        entry.save(update_fields=["status", "checked_in_at"])
    return entry


#: The longest reason recorded for a withdrawal after the start.
REASON_MAX = 200


@transaction.atomic
def withdraw(
    user: User,
    tournament: Tournament,
    entry: Entry | None = None,
    now: datetime | None = None,
    *,
    reason: str = "",
) -> Entry:
    """Withdraw an entry (退赛). A pending entry is removed instead (it never took part), its
    invitation withdrawn.

    Before any round is paired a player withdraws their own entry (an organiser any). From
    then on only an organiser may (第二十三条: "经竞赛部门同意方可退赛"):

    * round 1 paired but not started (第二十四条一): round 1 is paired again without the entry
      — a round robin's schedule is drawn afresh for the entries left (an odd number: a bye
      each round), a knockout's bracket too, a Swiss round has a bye for an odd number;
    * after round 1 has started (第二十四条二), with a ``reason`` (required, at most
      :data:`REASON_MAX` characters) — the rule of the format (:func:`_after_start`).

    A withdrawal after the start is recorded on the entry: the round, the reason, who accepted
    it and the rule applied (``withdrawn_round``, ``withdrawal_reason``, ``withdrawn_by``,
    ``withdrawal_rule``), also for an entry that has no game. Withdrawing a withdrawn entry
    again changes nothing. Refusals change nothing."""
    tournament = locked(tournament)
    now = now or timezone.now()
    entry = _entry_for_action(user, tournament, entry)
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise TournamentError("closed", _("This tournament is over."))
    if entry.status == EntryStatus.PENDING:
        return PARTNERS.withdraw(user, entry)
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if entry.status == EntryStatus.WITHDRAWN:
        return entry
    rounds = list(tournament.rounds.order_by("number"))
    if rounds and not can_manage(user, tournament):
        raise TournamentError(
            "organiser_only",
            _(
                "Once round 1 is paired, only an organiser can accept a withdrawal "
                "(第二十三条): ask the organiser."
            ),
        )
    started = any(r.status != RoundStatus.PAIRED for r in rounds)
    if started:
        reason = _withdrawal_reason(reason)
    held_place = entry.status != EntryStatus.WAITING
    entry.status = EntryStatus.WITHDRAWN
    entry.withdrawn_at = now
    entry.save(update_fields=["status", "withdrawn_at"])
    if held_place and not started:
        # a place freed before the start: the first waiting entry (or team) moves up, once
        fill_places(tournament, now)
    if rounds and not started:
        # 第二十四条一: round 1 has not started — it is paired again without the entry
        tournament.rounds.all().delete()
        create_round(tournament, 1, now, withdraw_missing=False)
    elif started:
        _after_start(user, tournament, entry, rounds[-1], reason, now)
    return entry


def _withdrawal_reason(reason: object) -> str:
    """The reason given for a withdrawal after the start, stripped; refused when empty or
    longer than :data:`REASON_MAX`."""
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        raise TournamentError(
            "reason_needed",
            _("Give the reason for the withdrawal: after the start it needs one (第二十三条)."),
        )
    if len(text) > REASON_MAX:
        raise TournamentError(
            "reason_too_long",
            _("The reason for the withdrawal is at most %(n)d characters.") % {"n": REASON_MAX},
        )
    return text


def _after_start(
    user: User, tournament: Tournament, entry: Entry, last: Round, reason: str, now: datetime
) -> None:
    """第二十四条二 for ``entry``, withdrawn while ``last`` is the latest round.

    The round it withdraws in is ``last`` while it is paired or being played, else the next
    one. Its game in that round (if it has no result yet) is forfeited to the other side
    (:func:`~tournaments.services.forfeits.forfeit_withdrawn`); then by format:

    * round robin: under half of its games played (counting the games with a result
      against an opponent, the round's own game if it is already decided; a double round
      robin counts both meetings with each opponent: :func:`.withdrawals.round_robin_rule`),
      every result of the entry is annulled — it leaves the standings; each opponent keeps
      the result it scored against it, and its games not yet played are byes. Half or more: its results
      stand and each of its games still to come is a forfeit to the opponent (2:0 场分 and
      18:0 级分 under national scoring);
    * Swiss: its results stand; it is not paired again;
    * knockout: the opponent of this round goes through (and of any later round it would
      have reached: such a game is forfeited when paired)."""
    current = last if last.status in (RoundStatus.PAIRED, RoundStatus.PLAYING) else None
    number = last.number if current is not None else last.number + 1
    games = [
        g
        for g in Game.objects.filter(round__tournament=tournament)
        .select_related("round")
        .order_by("round__number", "number")
        if entry.pk in g.side0 + g.side1
    ]
    rule = WithdrawalRule.SWISS
    if tournament.format in KNOCKOUT_FORMATS:
        rule = WithdrawalRule.KNOCKOUT
    elif tournament.format == TournamentFormat.ROUND_ROBIN:
        played = sum(1 for g in games if g.side1 and g.status == GameStatus.FINISHED)
        rule = WithdrawalRule(round_robin_rule(tournament, entry.pk, played))
    entry.withdrawn_round = number
    entry.withdrawal_reason = reason
    entry.withdrawn_by = user
    entry.withdrawal_rule = rule
    entry.save(
        update_fields=["withdrawn_round", "withdrawal_reason", "withdrawn_by", "withdrawal_rule"]
    )
    if current is not None:
        forfeit_withdrawn(tournament, current, now, only=[entry.pk])
    if rule == WithdrawalRule.ANNULLED:
        # each game it played says why its result no longer counts for it (the other side
        # keeps it)
        annulled = [
            g
            for g in Game.objects.filter(pk__in=[g.pk for g in games])
            if g.side1 and g.status == GameStatus.FINISHED
        ]
        for game in annulled:
            game.notes = [
                *game.notes,
                _note(selectors.WITHDRAWAL_ANNULLED, entry, {"round": number, "name": entry.name}),
            ]
        Game.objects.bulk_update(annulled, ["notes"])
    notifications.notify_users(
        tournament,
        entry.user_ids,
        lambda: (
            _("%(t)s: your withdrawal in round %(n)d is accepted: %(reason)s")
            % {"t": tournament.name, "n": number, "reason": reason}
        ),
        key=f"withdrawal:{entry.pk}",
    )


def _note(code: str, entry: Entry, detail: dict[str, object]) -> dict[str, object]:
    """A game note about ``entry``'s withdrawal."""
    return {"code": code, "units": [entry.pk], "detail": dict(detail)}


@transaction.atomic
def reinstate(
    user: User, tournament: Tournament, entry: Entry, now: datetime | None = None
) -> Entry:
    """Put a withdrawn entry back (organisers): checked in if it had checked in, else
    registered; it is paired from the next round on (games already played stay). An entry
    that withdrew after the start (第二十四条二) cannot come back: its games were decided by
    the withdrawal."""
    tournament = locked(tournament)
    if not can_manage(user, tournament):
        raise not_allowed()
    if entry.tournament_id != tournament.pk:
        raise TournamentError("not_registered", _("This entry is not in the tournament."))
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise TournamentError("closed", _("This tournament is over."))
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if entry.status != EntryStatus.WITHDRAWN:
        return entry
    if entry.withdrawn_round is not None:
        # its games were forfeited or annulled by the rules of 第二十四条二: they stay so
        raise TournamentError(
            "withdrawn_after_start",
            _("This entry withdrew after the start: the withdrawal stands (第二十四条)."),
        )
    for person in [entry.player1_id] + ([entry.player2_id] if entry.player2_id else []):
        other = (
            tournament.entries.filter(Q(player1_id=person) | Q(player2_id=person))
            .exclude(pk=entry.pk)
            .exclude(status=EntryStatus.WITHDRAWN)
        )
        if other.exists():
            raise TournamentError(
                "already_registered", _("A player of this entry has registered again.")
            )
    entry.status = EntryStatus.CHECKED_IN if entry.checked_in_at else EntryStatus.REGISTERED
    if new_status(tournament, entry.club_team_id) == EntryStatus.WAITING:
        entry.status = EntryStatus.WAITING  # the cap is reached: it waits for a place
    entry.withdrawn_at = None
    entry.save(update_fields=["status", "withdrawn_at"])
    return entry


def _before_round_one(user: User, tournament: Tournament) -> Tournament:
    tournament = locked(tournament)
    if not can_manage(user, tournament):
        raise not_allowed()
    if tournament.rounds.exists():
        raise TournamentError("seeded", _("Seeds can only be changed before round 1 is paired."))
    return tournament


def _renumber(entries: list[Entry]) -> list[Entry]:
    for seed, entry in enumerate(entries, start=1):
        entry.seed = seed
    Entry.objects.bulk_update(entries, ["seed"])
    return entries


@transaction.atomic
def seed_by_rating(user: User, tournament: Tournament) -> list[Entry]:
    """Seed the entries (organisers, before round 1) by the club ladder's rating of the
    tournament's game: a pair by its players' mean rating; an entry with an unrated player
    comes after every rated one; ties keep the registration order. Returns the entries in
    their new seeding order (knockout brackets and Swiss round 1 pair in this order)."""
    tournament = _before_round_one(user, tournament)
    entries = list(tournament.entries.order_by("seed", "id"))
    ladder = Ladder.objects.filter(club=tournament.club, variant=tournament.variant).first()
    ratings = (
        dict(Rating.objects.filter(ladder=ladder).values_list("user_id", "rating"))
        if ladder
        else {}
    )

    def key(item: tuple[int, Entry]) -> tuple[int, float, int]:
        index, entry = item
        values = [ratings.get(uid) for uid in entry.user_ids]
        if None in values:
            return (1, 0.0, index)
        return (0, -sum(values) / len(values), index)

    return _renumber([entry for _, entry in sorted(enumerate(entries), key=key)])


@transaction.atomic
def seed_by_stage(user: User, tournament: Tournament, earlier: Tournament) -> list[Entry]:
    """Seed the entries (organisers, before round 1) by their places in ``earlier``, a
    finished tournament of the same club and game — an earlier stage (第二十六条: a knockout is
    seeded by "以前一阶段比赛的名次"): an entry is found there by its players; the entries not
    found come after the others in their order. A knockout then places them serpentine
    (:func:`tournaments.pairing.bracket_order`). Returns the entries in their new order."""
    tournament = _before_round_one(user, tournament)
    if (
        earlier.pk == tournament.pk
        or earlier.club_id != tournament.club_id
        or earlier.variant != tournament.variant
        or earlier.status != TournamentStatus.FINISHED
    ):
        raise TournamentError(
            "bad_stage",
            _("Choose a finished tournament of this club in the same game."),
        )
    places = {
        frozenset(line.entry.user_ids): index
        for index, line in enumerate(selectors.standings(earlier))
    }
    entries = list(tournament.entries.order_by("seed", "id"))
    unknown = len(places)

    def key(item: tuple[int, Entry]) -> tuple[int, int]:
        index, entry = item
        return (places.get(frozenset(entry.user_ids), unknown), index)

    return _renumber([entry for _, entry in sorted(enumerate(entries), key=key)])


@transaction.atomic
def set_seed(user: User, tournament: Tournament, entry: Entry, seed: int) -> list[Entry]:
    """Move ``entry`` to place ``seed`` of the seeding order (organisers, before round 1);
    the others keep their order. ``seed`` is bounded by the number of entries."""
    tournament = _before_round_one(user, tournament)
    entries = list(tournament.entries.order_by("seed", "id"))
    moving = next((e for e in entries if e.pk == entry.pk), None)
    if moving is None:
        raise TournamentError("not_registered", _("This entry is not in the tournament."))
    if not isinstance(seed, int) or not 1 <= seed <= len(entries):
        raise TournamentError("bad_seed", _("A seed is between 1 and %(n)d.") % {"n": len(entries)})
    entries.remove(moving)
    entries.insert(seed - 1, moving)
    return _renumber(entries)
