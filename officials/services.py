"""The officials' actions: appointing and removing an event's officials, its appeal time, a
player's written appeal, the committee's votes and their decision, and the organiser's
announcements. The only code of the app that changes state; every action checks the actor's
current role here (the pages and the API refuse exactly the same things).

What the national rules say, and how it is kept (第三十四、三十五、三十九条):

* the organiser appoints a chief referee (one), referees and an appeals committee — any
  members of the event's club; one role per person and event, so that nobody judges an appeal
  against their own ruling;
* the committee decides only while it has an odd number of members, at least three; each
  member votes once, to dismiss the appeal or to uphold it with the result they would set;
  the first proposal that a majority of the committee backs decides (少数服从多数), and the
  decision is final;
* a decision that changes a result calls the event's one place where a result changes —
  :func:`tournaments.services.results.correct_result` for a tournament's game,
  :func:`leagues.services.play.correct_table` for a league fixture's table — so that
  standings, the games of later rounds that have not started (tournaments), the ratings and
  the statistics follow once; the appeal keeps the result before and after, who decided,
  and every vote its reason.
* the appeal fee the event sets (第三十九条一.4, 二.4) is a record — the platform takes no
  money: due when the appeal is filed, marked received by the organiser or the chief
  referee, then refunded when the appellant prevails or kept when not; nobody rules or
  votes on an appeal whose fee is still due ("同时...缴纳": paid with the appeal).

An appeal is about a tournament ``Game`` or a league ``FixtureTable`` (its *target*); the flow
is the same, only the few facts below differ per target (who played, when its time ends,
its scores, the correction).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from clubs.models import User
from clubs.services import ClubError
from games import errors
from games.variants import game as game_facts
from games.variants import level_names
from leagues.models import FixtureStatus, FixtureTable, Season
from leagues.services import play as league_play
from officials import selectors
from officials.models import (
    MAX_APPEAL_FEE,
    MAX_APPEAL_MINUTES,
    MIN_APPEAL_MINUTES,
    SUBJECT_MAX,
    TEXT_MAX,
    Announcement,
    Appeal,
    AppealStatus,
    AppealSubject,
    Audience,
    FeeState,
    Official,
    OfficialRole,
    Panel,
    Verdict,
    Vote,
)
from officials.permissions import (
    appellants,
    can_dismiss,
    is_member,
    is_organiser,
    may_mark_fee,
    may_rule,
    may_vote,
    players_of,
    same_side,
    seated_at,
)
from outbox import services as outbox
from outbox.models import Kind
from tournaments.models import Game, GameStatus, Tournament
from tournaments.services import results as tournament_results

#: The most votes' scores are trusted with (a level or a point total).
SCORE_LIMIT = 10**6


class OfficialsError(ClubError):
    """A refused officials action; ``fields`` keeps every field's errors for the forms."""

    def __init__(self, code: str, message: str, fields: dict[str, str] | None = None) -> None:
        """Keep the field errors beside the joined message."""
        super().__init__(code, message)
        self.fields = fields or {}


class NotAllowed(OfficialsError, errors.NotAllowed):
    """The actor has no current role for the action (HTTP 403)."""


def not_allowed() -> NotAllowed:
    """The refusal of an action the user has no role for."""
    return NotAllowed("not_allowed", _("You are not allowed to do this."))


def _refuse_fields(fields: dict[str, str]) -> None:
    """Raise every field's error at once (nothing changed)."""
    if fields:
        raise OfficialsError("invalid", " ".join(fields.values()), fields)


# --------------------------------------------------------------------------- panels
def panel_for(event: Tournament | Season) -> Panel:
    """The panel of ``event``, made on first use (its appeal time: the rules' 30 minutes)."""
    if isinstance(event, Tournament):
        panel, _created = Panel.objects.get_or_create(tournament=event)
    else:
        panel, _created = Panel.objects.get_or_create(season=event)
    return panel


def _organised(actor: User, event: Tournament | Season) -> Panel:
    panel = panel_for(event)
    if not is_organiser(actor, panel):
        raise not_allowed()
    return Panel.objects.select_for_update().get(pk=panel.pk)


@transaction.atomic
def appoint(actor: User, event: Tournament | Season, person: User | None, role: str) -> Official:
    """Appoint ``person`` to ``event``'s officials as ``role`` (``chief``, ``deputy``,
    ``referee``, ``committee``): the organiser only; ``person`` must be a member of the event's club, hold
    no other role at the event, and an event has one chief referee. Refused otherwise, having
    changed nothing."""
    panel = _organised(actor, event)
    fields: dict[str, str] = {}
    if role not in OfficialRole.values:
        fields["role"] = _(
            "Choose a role: chief referee, deputy chief referee, referee or appeals committee "
            "member."
        )
    if person is None:
        fields["user"] = _("Choose a member of the club.")
    elif not is_member(person, panel):
        fields["user"] = _("Only a member of the event's club can be appointed.")
    elif Official.objects.filter(panel=panel, user=person).exists():
        fields["user"] = _("This person already has a role at this event.")
    if role == OfficialRole.CHIEF and panel.officials.filter(role=OfficialRole.CHIEF).exists():
        fields["role"] = _("The event has a chief referee: remove them first.")
    _refuse_fields(fields)
    assert person is not None
    try:
        with transaction.atomic():
            return Official.objects.create(panel=panel, user=person, role=role, appointed_by=actor)
    except IntegrityError:
        raise OfficialsError("taken", _("This person already has a role at this event.")) from None


@transaction.atomic
def dismiss(actor: User, official: Official) -> None:
    """Remove ``official``: the organiser removes anyone, the chief referee (or a deputy, while
    the event has none) a referee (:func:`officials.permissions.can_dismiss`)."""
    official = Official.objects.select_related("panel").get(pk=official.pk)
    if not can_dismiss(actor, official):
        raise not_allowed()
    official.delete()


def _minutes_error(minutes: object) -> str | None:
    """Why ``minutes`` is not an appeal time (whole minutes from 5 to 1440), or None."""
    if (
        isinstance(minutes, bool)
        or not isinstance(minutes, int)
        or not MIN_APPEAL_MINUTES <= minutes <= MAX_APPEAL_MINUTES
    ):
        return _("The time to appeal is a whole number of minutes from %(low)d to %(high)d.") % {
            "low": MIN_APPEAL_MINUTES,
            "high": MAX_APPEAL_MINUTES,
        }
    return None


def _fee_error(fee: object) -> str | None:
    """Why ``fee`` is not an appeal fee (whole yuan from 0, no fee, to 10000), or None."""
    if isinstance(fee, bool) or not isinstance(fee, int) or not 0 <= fee <= MAX_APPEAL_FEE:
        return _("The appeal fee is a whole number of yuan from 0 (no fee) to %(high)d.") % {
            "high": MAX_APPEAL_FEE
        }
    return None


@transaction.atomic
def set_appeal_minutes(actor: User, event: Tournament | Season, minutes: object) -> Panel:
    """Set the time to appeal after a round ends (the organiser; whole minutes from 5 to
    1440; the rules' default is 30)."""
    panel = _organised(actor, event)
    error = _minutes_error(minutes)
    if error is not None:
        raise OfficialsError("bad_minutes", error, {"appeal_minutes": error})
    assert isinstance(minutes, int)
    panel.appeal_minutes = minutes
    panel.save(update_fields=["appeal_minutes"])
    return panel


@transaction.atomic
def set_appeal_fee(actor: User, event: Tournament | Season, fee: object) -> Panel:
    """Set the event's appeal fee (第三十九条一.4: "按竞赛规程的规定缴纳申诉费"): the organiser;
    whole yuan from 0 (no fee) to :data:`~officials.models.MAX_APPEAL_FEE`. Appeals filed
    before keep the fee they were filed with."""
    panel = _organised(actor, event)
    error = _fee_error(fee)
    if error is not None:
        raise OfficialsError("bad_fee", error, {"appeal_fee": error})
    assert isinstance(fee, int)
    panel.appeal_fee = fee
    panel.save(update_fields=["appeal_fee"])
    return panel


@transaction.atomic
def set_appeal_settings(
    actor: User, event: Tournament | Season, minutes: object, fee: object
) -> Panel:
    """Set the appeal time and the appeal fee together (the organiser's form): every field's
    error at once, nothing changed when one is wrong."""
    panel = _organised(actor, event)
    fields = {
        name: error
        for name, error in (
            ("appeal_minutes", _minutes_error(minutes)),
            ("appeal_fee", _fee_error(fee)),
        )
        if error is not None
    }
    _refuse_fields(fields)
    assert isinstance(minutes, int) and isinstance(fee, int)
    panel.appeal_minutes, panel.appeal_fee = minutes, fee
    panel.save(update_fields=["appeal_minutes", "appeal_fee"])
    return panel


# --------------------------------------------------------------------------- appeals
Target = Game | FixtureTable


@transaction.atomic
def file_appeal(
    user: User, target: Target, subject: str, text: str, now: datetime | None = None
) -> Appeal:
    """File ``user``'s written appeal about ``target`` — a tournament game, or a league
    fixture's table — (a result or a sanction): a player of it (a league table: seated
    there), once its result is in and within the event's appeal time (a tournament: after
    its round finished; a season: after its fixture finished), one open appeal per player
    and target; a result the committee has decided is not appealed again (final). The committee and the chief referee are told (a notice and an e-mail each)."""
    now = now or timezone.now()
    if isinstance(target, Game):
        target = (
            Game.objects.select_for_update()
            .select_related("round__tournament__club")
            .get(pk=target.pk)
        )
        players = players_of(target)
    else:
        target = (
            FixtureTable.objects.select_for_update(of=("self",))
            .select_related("fixture__round__season__league", "fixture__home", "fixture__away")
            .get(pk=target.pk)
        )
        players = seated_at(target)
    if not user.is_authenticated or user.pk not in players:
        raise not_allowed()
    fields: dict[str, str] = {}
    if subject not in AppealSubject.values:
        fields["subject"] = _("Say what the appeal is about: the result or a sanction.")
    text = (text or "").strip()
    if not text:
        fields["text"] = _("Write what happened and what you ask the committee to decide.")
    elif len(text) > TEXT_MAX:
        fields["text"] = _("The appeal is at most %(n)d characters long.") % {"n": TEXT_MAX}
    _refuse_fields(fields)
    if isinstance(target, Game):
        if target.status != GameStatus.FINISHED:
            raise OfficialsError("not_finished", _("A game can be appealed once it has finished."))
        panel = panel_for(target.round.tournament)
        deadline = selectors.appeal_deadline(panel, target)
        late = _("The time to appeal this game ended %(minutes)d minutes after its round.")
        before = (target.score0, target.score1)
        mine = Appeal.objects.filter(game=target, filed_by=user, status__in=UNSETTLED)
    else:
        if not target.done or target.fixture.status != FixtureStatus.DONE:
            raise OfficialsError(
                "not_finished", _("A table can be appealed once its fixture has finished.")
            )
        panel = panel_for(target.fixture.round.season)
        deadline = selectors.table_deadline(panel, target)
        late = _("The time to appeal this table ended %(minutes)d minutes after its fixture.")
        before = (target.home_score, target.away_score)
        mine = Appeal.objects.filter(table=target, filed_by=user, status__in=UNSETTLED)
    if deadline is not None and now > deadline:
        raise OfficialsError("too_late", late % {"minutes": panel.appeal_minutes})
    if mine.exists():
        raise OfficialsError("open_already", _("You have an open appeal about this game."))
    decided = Appeal.objects.filter(
        subject=AppealSubject.RESULT, status__in=(AppealStatus.UPHELD, AppealStatus.DISMISSED)
    )
    if isinstance(target, Game):
        decided = decided.filter(game=target)
    else:
        decided = decided.filter(table=target)
    if subject == AppealSubject.RESULT and decided.exists():
        # 第三十四条: the committee's decision is final (a correction reopens the league
        # table's time to appeal, not the question the committee answered)
        raise OfficialsError(
            "final", _("The appeals committee has decided this result: its decision is final.")
        )
    appeal = Appeal.objects.create(
        panel=panel,
        game=target if isinstance(target, Game) else None,
        table=target if isinstance(target, FixtureTable) else None,
        filed_by=user,
        subject=subject,
        text=text,
        filed_at=now,
        before0=before[0],
        before1=before[1],
        fee=panel.appeal_fee,
        fee_state=FeeState.DUE if panel.appeal_fee else FeeState.NONE,
    )
    for member in selectors.deciders(panel):
        _tell(member, f"officials:appeal:{appeal.pk}:filed:user:{member.pk}", appeal, "filed")
    return appeal


#: An appeal not yet settled: waiting for the committee, or ruled by the chief referee and
#: still open to be taken to the committee.
UNSETTLED = (AppealStatus.OPEN, AppealStatus.RULED)


def _proposal(vote: Vote) -> tuple[Any, ...]:
    if vote.verdict == Verdict.DISMISS:
        return (Verdict.DISMISS,)
    return (Verdict.UPHOLD, vote.score0, vote.score1, vote.winner)


def _check_scores(variant: str, score0: object, score1: object, winner: object) -> dict[str, str]:
    """The errors of a proposed result in ``variant``'s terms (the same bounds as the
    organiser's result form: levels by their names, points not below zero)."""
    fields: dict[str, str] = {}
    scores = (score0, score1)
    if any(isinstance(s, bool) or not isinstance(s, int) or abs(s) > SCORE_LIMIT for s in scores):
        fields["score"] = _("Give both sides' scores as whole numbers.")
        return fields
    assert isinstance(score0, int) and isinstance(score1, int)
    facts = game_facts(variant)
    if facts.levels:
        names = level_names(variant)
        if not (0 <= score0 <= facts.max_level and 0 <= score1 <= facts.max_level):
            fields["score"] = _("Levels go from %(low)s to %(high)s.") % {
                "low": names[0],
                "high": names[-1],
            }
        elif score0 == score1 == facts.max_level and winner not in (0, 1):
            fields["winner"] = _(
                "Both sides cannot both have won: name the side that passed the last level."
            )
    if winner is not None and winner not in (0, 1):
        fields["winner"] = _("The winner is side 0 or side 1.")
    return fields


def _variant(appeal: Appeal) -> str:
    """The game played at ``appeal``'s game or table."""
    if appeal.game_id is not None:
        assert appeal.game is not None
        return appeal.game.round.tournament.variant
    assert appeal.table is not None
    return appeal.table.fixture.round.season.variant


def _scores(appeal: Appeal) -> tuple[int | None, int | None, int | None]:
    """The current scores and winner of ``appeal``'s game (sides 0, 1) or table (home,
    away)."""
    if appeal.game_id is not None:
        assert appeal.game is not None
        game = appeal.game
        return game.score0, game.score1, game.winner
    assert appeal.table is not None
    table = appeal.table
    return table.home_score, table.away_score, table.winner


def _checked_decision(
    appeal: Appeal, verdict: str, reason: str, score0: object, score1: object, winner: object
) -> str:
    """Refuse, naming every field at once, a vote or ruling that is not a verdict with a
    reason (and, to uphold, a result in the game's terms); returns the reason, trimmed."""
    fields: dict[str, str] = {}
    if verdict not in Verdict.values:
        fields["verdict"] = _("Vote to uphold or to dismiss the appeal.")
    reason = (reason or "").strip()
    if not reason:
        fields["reason"] = _("Give the reason for your vote.")
    elif len(reason) > TEXT_MAX:
        fields["reason"] = _("The reason is at most %(n)d characters long.") % {"n": TEXT_MAX}
    if verdict == Verdict.UPHOLD:
        fields.update(_check_scores(_variant(appeal), score0, score1, winner))
        scores = (score0, score1)
        if appeal.table_id is not None and "score" not in fields:
            if not all(isinstance(v, int) and 0 <= v <= league_play.MAX_SCORE for v in scores):
                fields["score"] = _("A score is a whole number from 0 to 100000.")
    _refuse_fields(fields)
    return reason


def _locked(appeal: Appeal) -> Appeal:
    """``appeal`` read again under a row lock, with what the decisions read."""
    return (
        Appeal.objects.select_for_update(of=("self",))
        .select_related("panel", "game__round__tournament", "table__fixture__round__season__league")
        .get(pk=appeal.pk)
    )


@transaction.atomic
def rule(
    user: User,
    appeal: Appeal,
    verdict: str,
    reason: str,
    score0: int | None = None,
    score1: int | None = None,
    winner: int | None = None,
    now: datetime | None = None,
) -> Appeal:
    """The chief referee's first ruling on an open appeal (第三十九条二.1: "可由裁判长进行裁
    决"), before the committee has begun to vote: dismiss, or uphold with a result, which
    changes it at once through the event's one correction path (第三十五条一: the chief
    referee corrects results after an appeal). The players are told; any player of the game
    may take the ruling to the committee within the event's appeal time (:func:`escalate`),
    else it stands. Only :func:`~officials.permissions.may_rule`'s person; refused otherwise,
    having changed nothing."""
    now = now or timezone.now()
    appeal = _locked(appeal)
    if not may_rule(user, appeal):
        raise not_allowed()
    if appeal.status != AppealStatus.OPEN or appeal.escalated_at or appeal.votes.exists():
        raise OfficialsError(
            "with_committee",
            _("The appeals committee has this appeal: the chief referee no longer rules on it."),
        )
    _require_fee(appeal)
    reason = _checked_decision(appeal, verdict, reason, score0, score1, winner)
    if verdict == Verdict.UPHOLD:
        assert isinstance(score0, int) and isinstance(score1, int)
        _set_result(user, appeal, score0, score1, winner, reason, now)
        appeal.ruling0, appeal.ruling1 = score0, score1
    appeal.status = AppealStatus.RULED
    appeal.ruling, appeal.ruling_reason = verdict, reason
    appeal.ruled_at, appeal.ruled_by = now, user
    appeal.save(
        update_fields=[
            "status",
            "ruling",
            "ruling0",
            "ruling1",
            "ruling_reason",
            "ruled_at",
            "ruled_by",
        ]
    )
    _tell_players(appeal, "ruled")
    _settle_fee(appeal, verdict == Verdict.UPHOLD, now)
    return appeal


@transaction.atomic
def escalate(user: User, appeal: Appeal, text: str, now: datetime | None = None) -> Appeal:
    """Take the chief referee's ruling to the appeals committee (第三十九条二.2: "如对裁判长的
    裁决不服，可向仲裁委员会申诉"): a player of the game or table, in writing, within the
    event's appeal time after the ruling. The appeal is open again and the committee decides
    it as any other (its decision final); the committee is told. Refused otherwise, having
    changed nothing."""
    now = now or timezone.now()
    appeal = _locked(appeal)
    if not user.is_authenticated or user.pk not in appellants(appeal):
        raise not_allowed()
    if appeal.status != AppealStatus.RULED:
        raise OfficialsError(
            "not_ruled", _("Only a ruling of the chief referee is taken to the committee.")
        )
    assert appeal.ruled_at is not None
    if now > selectors.escalation_deadline(appeal):
        raise OfficialsError(
            "too_late",
            _("The time to take the ruling to the committee ended %(minutes)d minutes after it.")
            % {"minutes": appeal.panel.appeal_minutes},
        )
    text = (text or "").strip()
    if not text:
        _refuse_fields({"text": _("Write why the ruling is wrong and what you ask the committee.")})
    if len(text) > TEXT_MAX:
        _refuse_fields(
            {"text": _("The appeal is at most %(n)d characters long.") % {"n": TEXT_MAX}}
        )
    appeal.status = AppealStatus.OPEN
    appeal.escalated_at, appeal.escalation_text, appeal.escalated_by = now, text, user
    appeal.save(update_fields=["status", "escalated_at", "escalation_text", "escalated_by"])
    for member in selectors.committee(appeal.panel):
        key = f"officials:appeal:{appeal.pk}:escalated:user:{member.pk}"
        _tell(member, key, appeal, "filed")
    return appeal


@transaction.atomic
def cast_vote(
    user: User,
    appeal: Appeal,
    verdict: str,
    reason: str,
    score0: int | None = None,
    score1: int | None = None,
    winner: int | None = None,
    now: datetime | None = None,
) -> Appeal:
    """Record ``user``'s vote on an open ``appeal`` (a current member of the committee with no
    stake in the game or fixture) and decide the appeal once a majority of the committee
    backs one proposal: dismiss, or uphold with one result (a league table's: home, away).
    An upheld appeal whose result differs from the current one changes it through the
    event's one correction path (:func:`tournaments.services.results.correct_result`,
    :func:`leagues.services.play.correct_table`); who decided and why is recorded; the filer
    and the players are told. A committee that is not an odd number of at least three
    members decides nothing: the vote is refused."""
    now = now or timezone.now()
    appeal = _locked(appeal)
    if not may_vote(user, appeal):
        raise not_allowed()
    if appeal.status == AppealStatus.RULED:
        raise OfficialsError(
            "ruled", _("The chief referee has ruled: the committee decides only if a player asks.")
        )
    if appeal.status != AppealStatus.OPEN:
        raise OfficialsError("decided", _("This appeal has been decided."))
    _require_fee(appeal)
    members = selectors.committee(appeal.panel)
    if len(members) < 3 or len(members) % 2 == 0:
        raise OfficialsError(
            "committee_size",
            _(
                "The appeals committee needs an odd number of members, at least three, "
                "before it decides (it has %(n)d)."
            )
            % {"n": len(members)},
        )
    reason = _checked_decision(appeal, verdict, reason, score0, score1, winner)
    if Vote.objects.filter(appeal=appeal, member=user).exists():
        raise OfficialsError("voted", _("You have voted on this appeal."))
    upheld = verdict == Verdict.UPHOLD
    Vote.objects.create(
        appeal=appeal,
        member=user,
        verdict=verdict,
        score0=score0 if upheld else None,
        score1=score1 if upheld else None,
        winner=winner if upheld else None,
        reason=reason,
        cast_at=now,
    )
    _decide(user, appeal, members, now)
    return appeal


def _decide(user: User, appeal: Appeal, members: list[User], now: datetime) -> None:
    """Decide ``appeal`` if one proposal has a majority of the committee's current members."""
    ids = {m.pk for m in members}
    votes = [v for v in appeal.votes.all() if v.member_id in ids]
    counts = Counter(_proposal(v) for v in votes)
    if not counts:
        return
    proposal, backing = counts.most_common(1)[0]
    if backing < len(members) // 2 + 1:
        return
    if proposal[0] == Verdict.DISMISS:
        appeal.status = AppealStatus.DISMISSED
    else:
        appeal.status = AppealStatus.UPHELD
        _verdict, score0, score1, winner = proposal
        reasons = "; ".join(v.reason for v in votes if _proposal(v) == proposal)
        _set_result(user, appeal, score0, score1, winner, reasons, now)
        appeal.after0, appeal.after1 = score0, score1
    appeal.decided_at = now
    appeal.decided_by = user
    appeal.save(update_fields=["status", "after0", "after1", "decided_at", "decided_by"])
    _tell_players(appeal, "decided")
    if appeal.escalated_at is None:
        _settle_fee(appeal, appeal.status == AppealStatus.UPHELD, now)
    elif appeal.status == AppealStatus.UPHELD and appeal.escalated_by_id is not None:
        # the committee changed the chief referee's ruling: the side that took it there
        # prevailed; dismissing leaves the ruling, and the fee as the ruling settled it
        _settle_fee(appeal, same_side(appeal, appeal.filed_by_id, appeal.escalated_by_id), now)


# --------------------------------------------------------------------------- the appeal fee
def _require_fee(appeal: Appeal) -> None:
    """Refuse a ruling or a vote on an appeal whose fee is not received yet (第三十九条一.4:
    the fee is paid "同时", together with the appeal: until then it is not lodged)."""
    if appeal.fee_state == FeeState.DUE:
        message = _(
            "The appeal fee of %(fee)d yuan has not been received yet: the appeal is decided "
            "once it is paid."
        ) % {"fee": appeal.fee}
        raise OfficialsError("fee_due", message, {"fee": message})


@transaction.atomic
def mark_fee_received(user: User, appeal: Appeal, now: datetime | None = None) -> Appeal:
    """Record that ``appeal``'s fee was paid to the organising committee: the event's
    organiser or the chief referee (a deputy while there is none), as they stand now, never
    the filer (:func:`officials.permissions.may_mark_fee`); once, and only for an appeal
    with a fee. The ruling and the committee's votes wait for it."""
    now = now or timezone.now()
    appeal = _locked(appeal)
    if not may_mark_fee(user, appeal):
        raise not_allowed()
    if appeal.fee_state == FeeState.NONE:
        message = _("This appeal has no appeal fee to receive.")
        raise OfficialsError("no_fee", message, {"fee": message})
    if appeal.fee_state != FeeState.DUE:
        message = _("The appeal fee is already recorded as received.")
        raise OfficialsError("fee_received", message, {"fee": message})
    appeal.fee_state = FeeState.RECEIVED
    appeal.fee_received_at, appeal.fee_received_by = now, user
    appeal.save(update_fields=["fee_state", "fee_received_at", "fee_received_by"])
    return appeal


def _settle_fee(appeal: Appeal, prevailed: bool, now: datetime) -> None:
    """Refund the received fee when the appellant prevailed (第三十九条二.4: "如申诉方胜诉，则
    相应要退回申诉费"), keep it otherwise; a later decision (the committee's, on a ruling
    taken to it) settles it again. The filer is told of a refund once."""
    if appeal.fee_state not in (FeeState.RECEIVED, FeeState.REFUNDED, FeeState.KEPT):
        return
    state = FeeState.REFUNDED if prevailed else FeeState.KEPT
    if state == appeal.fee_state:
        return
    appeal.fee_state, appeal.fee_settled_at = state, now
    appeal.save(update_fields=["fee_state", "fee_settled_at"])
    if state == FeeState.REFUNDED:
        filer = User.objects.get(pk=appeal.filed_by_id)
        _tell(filer, f"officials:appeal:{appeal.pk}:fee-refunded:user:{filer.pk}", appeal, "refund")


def _set_result(
    user: User,
    appeal: Appeal,
    score0: int,
    score1: int,
    winner: int | None,
    reasons: str,
    now: datetime,
) -> None:
    """Make the upheld result the appealed game's or table's, unless it already is."""
    now0, now1, now_winner = _scores(appeal)
    if (score0, score1) != (now0, now1) or (winner is not None and winner != now_winner):
        _correct(user, appeal, score0, score1, winner, reasons, now)


def _tell_players(appeal: Appeal, what: str) -> None:
    """Tell the filer and the players of ``appeal``'s game or table (``ruled``, ``decided``)."""
    for uid in {appeal.filed_by_id, *appellants(appeal)}:
        person = User.objects.get(pk=uid)
        _tell(person, f"officials:appeal:{appeal.pk}:{what}:user:{uid}", appeal, what)


def _correct(
    user: User,
    appeal: Appeal,
    score0: int,
    score1: int,
    winner: int | None,
    reasons: str,
    now: datetime,
) -> None:
    """Change the appealed result through the event's one correction path (``user``: the
    member whose vote made the majority; ``reasons``: the majority's reasons)."""
    if appeal.game is not None:
        appeal.game = tournament_results.correct_result(
            user, appeal.game, score0, score1, reasons, winner=winner, now=now
        )
        return
    assert appeal.table is not None
    try:
        league_play.correct_table(
            user, appeal.table, score0, score1, winner=winner, by_committee=True
        )
    except ClubError as error:
        raise OfficialsError(error.code, error.message, {"score": error.message}) from None
    appeal.table.refresh_from_db()


def _tell(person: User, key: str, appeal: Appeal, what: str) -> None:
    """A notice and an e-mail about ``appeal`` (``filed``: to the committee and the chief
    referee; ``ruled``, ``decided``: to the filer and the players; ``refund``: to the filer,
    whose fee is given back) in ``person``'s language."""
    url = selectors.appeal_url(appeal)
    with translation.override(person.language or settings.LANGUAGE_CODE):
        name = selectors.event_name(appeal.panel)
        if what == "filed":
            subject = _("An appeal to decide at %(event)s") % {"event": name}
        elif what == "refund":
            subject = _("Your appeal fee at %(event)s is refunded") % {"event": name}
        else:
            subject = _("Your appeal at %(event)s: %(status)s") % {
                "event": name,
                "status": AppealStatus(appeal.status).label,
            }
        text = appeal.text
        if what == "filed" and appeal.fee_state == FeeState.DUE:
            text += "\n\n" + _(
                "Appeal fee of %(fee)d yuan due: it is marked received on the appeal's page "
                "before anyone decides."
            ) % {"fee": appeal.fee}
        if what == "refund":
            text = _(
                "The appellant prevailed: the organising committee gives back your appeal fee "
                "of %(fee)d yuan."
            ) % {"fee": appeal.fee}
        body = f"{subject}\n\n{text}\n\n" + _("Open the page: %(link)s") % {
            "link": outbox.site_url(url)
        }
    outbox.tell_user_once(
        key=key[:200],
        user=person,
        kind=Kind.TOURNAMENTS if appeal.game_id is not None else Kind.LEAGUES,
        rendered=outbox.Rendered(subject[:200], body),
        url=url,
    )


# --------------------------------------------------------------------------- announcements
@transaction.atomic
def announce(
    actor: User,
    event: Tournament | Season,
    audience: str,
    subject: str,
    text: str,
    target: str = "",
    now: datetime | None = None,
) -> Announcement:
    """Send the organiser's announcement to ``event``'s entrants (``all``), a season's
    division (``division``, ``target`` its id) or a team (``team``: a season's team id, a
    tournament's team label): a notice for each player and an e-mail under their
    preferences (tournament or league e-mails), once each, through the outbox."""
    panel = _organised(actor, event)
    fields: dict[str, str] = {}
    subject, text, target = (subject or "").strip(), (text or "").strip(), str(target or "")
    if audience not in Audience.values:
        fields["audience"] = _("Choose whom the announcement goes to.")
    elif audience == Audience.DIVISION and not selectors.division_of(panel, target):
        fields["audience"] = _("Choose one of the season's divisions.")
    elif audience == Audience.TEAM and not selectors.team_named(panel, target):
        fields["audience"] = _("Choose one of the event's teams.")
    if not subject:
        fields["subject"] = _("Give the announcement a subject.")
    elif len(subject) > SUBJECT_MAX:
        fields["subject"] = _("The subject is at most %(n)d characters long.") % {"n": SUBJECT_MAX}
    if not text:
        fields["text"] = _("Write the announcement.")
    elif len(text) > TEXT_MAX:
        fields["text"] = _("The announcement is at most %(n)d characters long.") % {"n": TEXT_MAX}
    _refuse_fields(fields)
    people = selectors.recipients(panel, audience, target)
    if not people:
        raise OfficialsError(
            "nobody", _("Nobody has entered there yet: the announcement would reach no one.")
        )
    announcement = Announcement.objects.create(
        panel=panel,
        author=actor,
        audience=audience,
        target=int(target)
        if isinstance(event, Season) and audience in (Audience.DIVISION, Audience.TEAM)
        else None,
        team=target if audience == Audience.TEAM else "",
        subject=subject,
        text=text,
        recipients=len(people),
        sent_at=now or timezone.now(),
    )
    kind = Kind.TOURNAMENTS if isinstance(event, Tournament) else Kind.LEAGUES
    url = selectors.officials_url(panel)
    for person in people:
        with translation.override(person.language or settings.LANGUAGE_CODE):
            title = _("%(event)s: %(subject)s") % {
                "event": selectors.event_name(panel),
                "subject": subject,
            }
            body = f"{text}\n\n" + _("Open the page: %(link)s") % {"link": outbox.site_url(url)}
        outbox.tell_user_once(
            key=f"officials:announcement:{announcement.pk}:user:{person.pk}",
            user=person,
            kind=kind,
            rendered=outbox.Rendered(title[:200], body),
            url=url,
        )
    return announcement
