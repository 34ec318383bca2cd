"""REST API of tournaments under ``/api/v1/`` (routes in :mod:`tournaments.api.urls`).

Everything an organiser and a player do on the web: create / edit, publish (open
registration), register, accept or decline a partner invitation, check in, withdraw, pair /
start / pause / resume a round, edit a pairing, enter or correct a result; and the reads
(schedule, pairings, standings with the tie-break numbers, bracket, an entry's results). Thin:
the services decide, with the same permissions as the pages; refusals answer 400 / 403 with
``{"detail", "code"}``.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_view, inline_serializer
from rest_framework import permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from clubs import permissions as club_permissions
from clubs.api.partners import PartnerAnswerActions, partner_schema
from clubs.api.serializers import request_object
from clubs.models import Membership, Role
from tournaments import comparisons, selectors
from tournaments.api.serializers import (
    DuplicateRoundSerializer,
    EntryActionSerializer,
    EntryRefSerializer,
    EntrySerializer,
    ForfeitSerializer,
    GameSerializer,
    GroupStandingsSerializer,
    NextStageSerializer,
    NoticeSerializer,
    RegisterSerializer,
    ResultSerializer,
    RoundSerializer,
    SeedSerializer,
    StandingSerializer,
    SwapSerializer,
    TournamentSerializer,
    WithdrawSerializer,
)
from tournaments.models import Entry, Game, Round, Scoring, Tournament
from tournaments.permissions import can_view, visible_to_invited
from tournaments.services import entries as entry_services
from tournaments.services import forfeits as forfeit_services
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import setup as setup_services
from tournaments.services import stages as stage_services


def _games_json(tournament: Tournament, games: Any) -> list[dict[str, Any]]:
    names = {e.pk: e.name for e in selectors.entries(tournament)}
    groups = selectors.entry_groups(tournament)  # 分组循环赛: each game's group
    return [selectors.game_json(g, names, tournament.per_seat, groups) for g in games]


def _round_json(tournament: Tournament, item: dict[str, Any]) -> dict[str, Any]:
    rnd = item["round"]
    games = _games_json(tournament, rnd.games.select_related("round")) if rnd else []
    return {
        "number": item["number"],
        "scheduled_at": item["scheduled_at"],
        "status": item["status"],
        "games": games,
    }


def _line_json(line: selectors.StandingLine, withdrawn: dict[int, Any]) -> dict[str, Any]:
    return {
        "place": line.row.place,
        "entry": line.entry.pk,
        "name": line.entry.name,
        "played": line.row.played,
        "wins": line.row.wins,
        "draws": line.row.draws,
        "losses": line.row.losses,
        "byes": line.row.byes,
        "values": line.row.values,
        "eliminated_after_round": line.eliminated_after,
        "withdrawal": _withdrawal_json(withdrawn.get(line.entry.pk)),
        # a knockout's place band (tournaments.placings); null in other formats
        "placing": None
        if line.placing is None
        else {
            "first": line.placing.first,
            "last": line.placing.last,
            "label": line.placing.label,
            "in_play": line.placing.in_play,
        },
    }


def _standings_json(tournament: Tournament) -> list[dict[str, Any]]:
    withdrawn = selectors.withdrawals(tournament)
    lines = [_line_json(line, withdrawn) for line in selectors.standings(tournament)]
    # entries whose results a withdrawal annulled (第二十四条二.1) follow, without a place
    names = dict(tournament.entries.values_list("pk", "name"))
    lines += [
        {
            "place": None,
            "entry": w.entry,
            "name": names.get(w.entry, ""),
            "played": 0,
            "wins": 0,
            "draws": 0,
            "losses": 0,
            "byes": 0,
            "values": {},
            "eliminated_after_round": None,
            "withdrawal": _withdrawal_json(w),
            "placing": None,
        }
        for w in withdrawn.values()
        if w.annulled
    ]
    return lines


def _withdrawal_json(withdrawal: selectors.Withdrawal | None) -> dict[str, Any] | None:
    """An entry's withdrawal after the start as the standings answer it (None: none)."""
    if withdrawal is None:
        return None
    return {
        "round": withdrawal.round,
        "reason": withdrawal.reason,
        "rule": withdrawal.rule,
        "annulled": withdrawal.annulled,
    }


TOURNAMENT_OUT = TournamentSerializer


AUTH = [permissions.IsAuthenticated]


@extend_schema_view(
    list=extend_schema(summary="Tournaments you may see (public; drafts: organisers)"),
    retrieve=extend_schema(summary="A tournament and its settings"),
    create=extend_schema(summary="Create a draft tournament. Permission: club owner or admin."),
    partial_update=extend_schema(summary="Edit settings. Permission: club owner or admin."),
    update=extend_schema(summary="Replace settings. Permission: club owner or admin."),
)
@partner_schema(
    EntryActionSerializer,
    EntrySerializer,
    accepted="Accept: the pending pair is registered (paired from the next round it can play).",
    declined="Decline: the pending entry is removed; both players may register again.",
)
class TournamentViewSet(PartnerAnswerActions, viewsets.ModelViewSet):
    """Tournaments of clubs; ``?club=<id>`` filters by club."""

    partners = entry_services.PARTNERS
    partner_request = EntryActionSerializer
    partner_response = EntrySerializer

    serializer_class = TournamentSerializer
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    filter_backends: list = []
    http_method_names = ["get", "post", "put", "patch", "head", "options"]

    def get_queryset(self) -> QuerySet[Tournament]:
        """Published tournaments, plus the drafts of clubs the caller runs; a members-only
        club's only to its members."""
        qs = Tournament.objects.select_related("club")
        user = self.request.user
        admin_clubs = (
            Membership.objects.filter(user=user, role__in=[Role.OWNER, Role.ADMIN]).values(
                "club_id"
            )
            if user.is_authenticated
            else Membership.objects.none().values("club_id")
        )
        qs = qs.filter(~Q(status="draft") | Q(club_id__in=admin_clubs))
        qs = qs.filter(
            club_permissions.visible_clubs_filter(user, "club") | visible_to_invited(user)
        ).distinct()
        club = self.request.query_params.get("club")
        if club is not None:
            # a number no row can have (beyond 64 bits) names no club
            named = club.isascii() and club.isdigit() and int(club) < 2**63
            qs = qs.filter(club_id=int(club)) if named else qs.none()
        return qs.order_by("-starts_at", "-id")

    def perform_create(self, serializer: TournamentSerializer) -> None:
        """Create through the service (which checks the role and the settings)."""
        data = dict(serializer.validated_data)
        club = data.pop("club")
        serializer.instance = setup_services.create_tournament(self.request.user, club, **data)

    def perform_update(self, serializer: TournamentSerializer) -> None:
        """Edit through the service."""
        data = dict(serializer.validated_data)
        data.pop("club", None)
        serializer.instance = setup_services.update_tournament(
            self.request.user, serializer.instance, **data
        )

    def _run(self, call: Any) -> Response:
        tournament = self.get_object()
        call(tournament)
        tournament.refresh_from_db()
        return Response(TournamentSerializer(tournament).data)

    @extend_schema(
        summary="Set the scoring (club, or the national rules); an alias of writing the "
        "tournament's scoring setting (PATCH). Permission: organisers.",
        deprecated=True,
        request=inline_serializer(
            "ScoringRequest", {"scoring": serializers.ChoiceField(choices=Scoring.choices)}
        ),
        responses=inline_serializer(
            "Scoring",
            {
                "id": serializers.IntegerField(),
                "scoring": serializers.CharField(),
                "tiebreaks": serializers.ListField(child=serializers.CharField()),
            },
        ),
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def scoring(self, request: Request, pk: str | None = None) -> Response:
        """``club``, or ``national``: 场分 2/1/0 and 级分 (Guandan: the 26-point table; Bao 2:
        its own levels), forfeits 2:0 and 18:0, ranked by the national tie-breaks unless the
        event chose its own (``tiebreaks`` answers the order that applies). Before round 1.
        Kept for API clients: the same as ``PATCH {"scoring": ...}`` (one check, the settings
        form's), answered in its older shape."""
        tournament = self.get_object()
        value = request.data.get("scoring") if hasattr(request.data, "get") else None
        tournament = setup_services.update_tournament(request.user, tournament, scoring=value)
        return Response(
            {
                "id": tournament.pk,
                "scoring": tournament.scoring,
                "tiebreaks": selectors.tiebreaks_of(tournament),
            }
        )

    @extend_schema(summary="Publish: open registration. Permission: organisers.", request=None)
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def publish(self, request: Request, pk: str | None = None) -> Response:
        """Publish a draft (registration opens by its window)."""
        return self._run(lambda t: setup_services.publish(request.user, t))

    @extend_schema(summary="Pause the tournament. Permission: organisers.", request=None)
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def pause(self, request: Request, pk: str | None = None) -> Response:
        """No round starts and no no-show is forfeited until resumed."""
        return self._run(lambda t: setup_services.pause(request.user, t))

    @extend_schema(summary="Resume a paused tournament. Permission: organisers.", request=None)
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def resume(self, request: Request, pk: str | None = None) -> Response:
        """Resume the schedule."""
        return self._run(lambda t: setup_services.resume(request.user, t))

    @extend_schema(summary="Cancel the tournament. Permission: organisers.", request=None)
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """Cancel a tournament that has not finished."""
        return self._run(lambda t: setup_services.cancel(request.user, t))

    @extend_schema(
        summary="Pair the next round without starting it. Permission: organisers.",
        request=None,
        responses=RoundSerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def pair(self, request: Request, pk: str | None = None) -> Response:
        """Pair now so the pairing can be edited; the round starts at its time. Round 1, once
        check-in has opened, withdraws the entries not checked in: refused (code
        ``confirm_withdrawals``, naming them) unless ``confirm_withdrawals`` is true."""
        tournament = self.get_object()
        rnd = round_services.pair_next_round(
            request.user, tournament, confirm_withdrawals=_confirmed(request)
        )
        return Response(_round_json(tournament, _schedule_item(tournament, rnd.number)))

    @extend_schema(
        summary="Start the next round now. Permission: organisers.",
        request=None,
        responses=RoundSerializer,
    )
    @action(detail=True, methods=["post"], url_path="start-round", permission_classes=AUTH)
    def start_round(self, request: Request, pk: str | None = None) -> Response:
        """Pair (if needed) and start the next round: tables open, clocks start."""
        tournament = self.get_object()
        rnd = round_services.start_round(
            request.user, tournament, confirm_withdrawals=_confirmed(request)
        )
        return Response(_round_json(tournament, _schedule_item(tournament, rnd.number)))

    @extend_schema(
        summary="Register (yourself, with a partner for pairs)",
        request=RegisterSerializer,
        responses=EntrySerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def register(self, request: Request, pk: str | None = None) -> Response:
        """Register while registration is open (organisers: any member, any time)."""
        tournament = self.get_object()
        data = _valid(RegisterSerializer, request)
        entry = entry_services.register(
            request.user,
            tournament,
            partner=data.get("partner"),
            player=data.get("player"),
            team=data.get("team", ""),
        )
        return Response(EntrySerializer(entry).data, status=201)

    @extend_schema(
        summary="Check in (your entry; organisers: any)",
        request=EntryActionSerializer,
        responses=EntrySerializer,
    )
    @action(detail=True, methods=["post"], url_path="check-in", permission_classes=AUTH)
    def check_in(self, request: Request, pk: str | None = None) -> Response:
        """Check in within the check-in window."""
        tournament = self.get_object()
        entry = _entry_param(tournament, _valid(EntryActionSerializer, request))
        return Response(
            EntrySerializer(entry_services.check_in(request.user, tournament, entry)).data
        )

    @extend_schema(
        summary="Withdraw (your entry before round 1 is paired; then organisers only, with a "
        "reason after the start)",
        request=WithdrawSerializer,
        responses=EntrySerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def withdraw(self, request: Request, pk: str | None = None) -> Response:
        """Withdraw: not paired in any later round; after the start the rules of 第二十四条
        apply (forfeits, annulled results: see docs/competitions.md)."""
        tournament = self.get_object()
        data = _valid(WithdrawSerializer, request)
        entry = _entry_param(tournament, data)
        withdrawn = entry_services.withdraw(
            request.user, tournament, entry, reason=data.get("reason", "")
        )
        return Response(EntrySerializer(withdrawn).data)

    @extend_schema(
        summary="Reinstate a withdrawn entry. Permission: organisers.",
        request=EntryRefSerializer,
        responses=EntrySerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def reinstate(self, request: Request, pk: str | None = None) -> Response:
        """Put a withdrawn entry back: paired from the next round on."""
        tournament = self.get_object()
        entry = _entry_param(tournament, _valid(EntryRefSerializer, request))
        return Response(
            EntrySerializer(entry_services.reinstate(request.user, tournament, entry)).data
        )

    @extend_schema(
        summary="Seed the entries by their ladder rating (before round 1). Permission: organisers.",
        request=None,
        responses=EntrySerializer(many=True),
    )
    @action(detail=True, methods=["post"], url_path="seed-by-rating", permission_classes=AUTH)
    def seed_by_rating(self, request: Request, pk: str | None = None) -> Response:
        """Every entry in its new seeding order."""
        seeded = entry_services.seed_by_rating(request.user, self.get_object())
        return Response(EntrySerializer(seeded, many=True).data)

    @extend_schema(
        summary="Seed the entries by their places in an earlier stage (before round 1). "
        "Permission: organisers.",
        request=inline_serializer(
            "SeedByStageRequest",
            {"stage": serializers.IntegerField(min_value=1, max_value=2**31 - 1)},
        ),
        responses=EntrySerializer(many=True),
    )
    @action(detail=True, methods=["post"], url_path="seed-by-stage", permission_classes=AUTH)
    def seed_by_stage(self, request: Request, pk: str | None = None) -> Response:
        """``stage``: a finished tournament of the same club and game; every entry in its new
        seeding order (those not in the earlier stage last)."""
        tournament = self.get_object()
        stage_id = _valid(StageSerializer, request)["stage"]
        earlier = Tournament.objects.filter(pk=stage_id, club=tournament.club).first()
        if earlier is None:
            raise NotFound()
        seeded = entry_services.seed_by_stage(request.user, tournament, earlier)
        return Response(EntrySerializer(seeded, many=True).data)

    @extend_schema(
        summary="Move an entry to a place of the seeding order (before round 1). "
        "Permission: organisers.",
        request=SeedSerializer,
        responses=EntrySerializer(many=True),
    )
    @action(detail=True, methods=["post"], url_path="set-seed", permission_classes=AUTH)
    def set_seed(self, request: Request, pk: str | None = None) -> Response:
        """Every entry in its new seeding order; the others keep theirs."""
        tournament = self.get_object()
        data = _valid(SeedSerializer, request)
        entry = _entry_param(tournament, data)
        seeded = entry_services.set_seed(request.user, tournament, entry, data["seed"])
        return Response(EntrySerializer(seeded, many=True).data)

    def partner_entry(self, event: Tournament, entry_id: int | None, request: Request) -> Entry:
        """The entry named (400 when it is not the tournament's), else the invitation naming
        the caller (refused ``no_invitation``)."""
        entry = _entry_param(event, {"entry": entry_id})
        return entry_services.invitation_to_answer(request.user, event, entry)

    @extend_schema(summary="Entries (public)", responses=EntrySerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def entries(self, request: Request, pk: str | None = None) -> Response:
        """Every entry in seeding order."""
        return Response(EntrySerializer(selectors.entries(self.get_object()), many=True).data)

    @extend_schema(
        summary="Schedule: every round with its games (public)",
        responses=RoundSerializer(many=True),
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def rounds(self, request: Request, pk: str | None = None) -> Response:
        """Rounds with time, status and pairings (with the reason for each broken preference)."""
        tournament = self.get_object()
        return Response([_round_json(tournament, i) for i in selectors.rounds_schedule(tournament)])

    @extend_schema(
        summary="A duplicate event's deals compared, round by round (public)",
        responses=DuplicateRoundSerializer(many=True),
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def duplicate(self, request: Request, pk: str | None = None) -> Response:
        """Each round's deals compared among the tables that played them (复式赛, docs/
        competitions.md), shown once every table of the round has finished; an empty list
        for an event that is not a duplicate."""
        tournament = self.get_object()
        if not tournament.duplicate:
            return Response([])
        names = {e.pk: e.name for e in selectors.entries(tournament)}
        return Response(
            [
                {"round": rnd.number, **comparisons.view_json(comparisons.round_view(rnd, names))}
                for rnd in tournament.rounds.order_by("number")
            ]
        )

    @extend_schema(
        summary="Standings with tie-break numbers (public)", responses=StandingSerializer(many=True)
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def standings(self, request: Request, pk: str | None = None) -> Response:
        """Places in the tournament's tie-break order; ``values`` holds each tie-break."""
        return Response(_standings_json(self.get_object()))

    @extend_schema(
        summary="A group round robin's standings, group by group (public; empty without groups)",
        responses=GroupStandingsSerializer(many=True),
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def groups(self, request: Request, pk: str | None = None) -> Response:
        """Each group (A, B, …) ranked on its own games (分组循环赛, 第二十七条一)."""
        tournament = self.get_object()
        withdrawn = selectors.withdrawals(tournament)
        return Response(
            [
                {"name": g.name, "standings": [_line_json(line, withdrawn) for line in g.lines]}
                for g in selectors.group_standings(tournament)
            ]
        )

    @extend_schema(
        summary="Make the next stage from this tournament's ranking (once every round is "
        "played): a tournament of the same club and game whose entries are the qualifiers, "
        "seeded from the ranking. Asked again, answers the stage made. Permission: organisers.",
        request=NextStageSerializer,
        responses={201: TournamentSerializer, 200: TournamentSerializer},
    )
    @action(detail=True, methods=["post"], url_path="next-stage", permission_classes=AUTH)
    def next_stage(self, request: Request, pk: str | None = None) -> Response:
        """201 with the new stage; 200 with the one already made."""
        earlier = self.get_object()
        data = _valid(NextStageSerializer, request)
        made = earlier.next_stage
        stage = stage_services.create_next_stage(
            request.user,
            earlier,
            format=data["format"],
            qualifiers_count=data["qualifiers"],
            rounds=data.get("rounds"),
            name=data.get("name", ""),
            series=data.get("series", ""),
            cycles=data.get("cycles"),
        )
        status = 200 if made is not None and made.pk == stage.pk else 201
        return Response(TournamentSerializer(stage).data, status=status)

    @extend_schema(
        summary="Elimination bracket: rounds of games in bracket order (public)",
        responses=GameSerializer(many=True),
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def bracket(self, request: Request, pk: str | None = None) -> Response:
        """One list of games per round; the third-place game last. In a double elimination
        each game also says its ``place`` in the bracket: ``bracket`` (``W`` winners', ``L``
        losers', ``F`` final), ``stage`` (from 1) and ``index`` (from 0)."""
        tournament = self.get_object()
        rounds = [_games_json(tournament, games) for games in selectors.bracket(tournament)]
        places = {
            item["slot"].id: item["slot"]
            for part in selectors.double_bracket(tournament)
            for stage in part["stages"]
            for item in stage
        }
        if places:
            for games in rounds:
                for game in games:
                    slot = places.get(game["slot"])
                    if slot is not None:
                        game["place"] = {
                            "bracket": slot.bracket,
                            "stage": slot.stage,
                            "index": slot.index,
                        }
        return Response(rounds)

    @extend_schema(
        summary="A single elimination's ties (对阵) round by round, each a series of games "
        "when the tournament plays several per tie (第三十条): its games, the games won, the "
        "match points and grade points added up, whether it is decided and who goes through "
        "(public)",
        responses=inline_serializer(
            "Tie",
            {
                "round": serializers.IntegerField(),
                "slot": serializers.IntegerField(),
                "third_place": serializers.BooleanField(),
                "sides": serializers.JSONField(),
                "games": GameSerializer(many=True),
                "mode": serializers.CharField(),
                "wins": serializers.ListField(child=serializers.IntegerField()),
                "points": serializers.ListField(child=serializers.IntegerField()),
                "grades": serializers.ListField(child=serializers.IntegerField()),
                "decided": serializers.BooleanField(),
                "winner": serializers.IntegerField(allow_null=True),
                "next_game": serializers.CharField(),
                "decider": serializers.BooleanField(),
            },
            many=True,
        ),
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def ties(self, request: Request, pk: str | None = None) -> Response:
        """One list of ties per round (the third-place tie last); empty for a format other
        than single elimination."""
        return Response(selectors.ties_json(self.get_object()))

    @extend_schema(
        summary="An entry's results round by round (public)",
        responses=inline_serializer(
            "EntryResult",
            {
                "round": serializers.IntegerField(),
                "game": serializers.IntegerField(),
                "partners": serializers.ListField(child=serializers.CharField()),
                "opponents": serializers.ListField(child=serializers.CharField()),
                "score": serializers.ListField(child=serializers.IntegerField(), allow_null=True),
                "outcome": serializers.CharField(),
            },
            many=True,
        ),
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"entries/(?P<entry_id>\d+)/results",
        pagination_class=None,
    )
    def entry_results(
        self, request: Request, pk: str | None = None, entry_id: str = ""
    ) -> Response:
        """The entry's games: partners (individual events), opponents, score, outcome."""
        tournament = self.get_object()
        entry = get_object_or_404(Entry, tournament=tournament, pk=int(entry_id))
        rows = selectors.player_results(tournament, entry)
        return Response(
            [
                {**r, "game": r["game"].pk, "score": list(r["score"]) if r["score"] else None}
                for r in rows
            ]
        )

    @extend_schema(
        summary="Swap two entries in a paired round before it starts. Permission: organisers.",
        request=SwapSerializer,
        responses=RoundSerializer,
    )
    @action(
        detail=True,
        methods=["post"],
        url_path=r"rounds/(?P<number>\d+)/swap",
        permission_classes=AUTH,
    )
    def swap(self, request: Request, pk: str | None = None, number: str = "") -> Response:
        """Edit a pairing; notes are recomputed."""
        tournament = self.get_object()
        rnd = get_object_or_404(Round, tournament=tournament, number=int(number))
        data = _valid(SwapSerializer, request)
        round_services.swap_entries(request.user, rnd, data["first"], data["second"])
        return Response(_round_json(tournament, _schedule_item(tournament, rnd.number)))


class StageSerializer(serializers.Serializer):
    """An earlier stage, by its tournament id."""

    stage = serializers.IntegerField(min_value=1, max_value=2**31 - 1)


def _confirmed(request: Request) -> bool:
    """Whether the organiser confirmed withdrawing the entries not checked in (round 1)."""
    return str(request_object(request.data).get("confirm_withdrawals", "")).lower() in (
        "1",
        "true",
        "yes",
    )


def _schedule_item(tournament: Tournament, number: int) -> dict[str, Any]:
    for item in selectors.rounds_schedule(tournament):
        if item["number"] == number:
            return item
    raise NotFound()


def _valid(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _entry_param(tournament: Tournament, data: dict[str, Any]) -> Entry | None:
    entry_id = data.get("entry")
    if entry_id is None:
        return None
    entry = Entry.objects.filter(tournament=tournament, pk=entry_id).first()
    if entry is None:
        raise serializers.ValidationError({"entry": [_("This entry is not in the tournament.")]})
    return entry


@extend_schema_view(
    retrieve=extend_schema(summary="A tournament game (public)", responses=GameSerializer)
)
class TournamentGameViewSet(viewsets.GenericViewSet):
    """Games of tournaments: read one, enter or correct its result."""

    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    serializer_class = GameSerializer
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[Game]:
        """Games of published tournaments (drafts have no games)."""
        return Game.objects.select_related("round", "round__tournament")

    def _game(self) -> Game:
        game = self.get_object()
        if not can_view(self.request.user, game.round.tournament):
            raise NotFound()
        return game

    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        """One game as in the pairings."""
        game = self._game()
        return Response(_games_json(game.round.tournament, [game])[0])

    @extend_schema(
        summary="Enter or correct a result. Permission: organisers.",
        request=ResultSerializer,
        responses=GameSerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def result(self, request: Request, pk: str | None = None) -> Response:
        """Standings follow at once; in elimination the bracket after it too."""
        game = self._game()
        data = _valid(ResultSerializer, request)
        if game.round.tournament.per_seat:  # the service checks the values (after the role)
            game = result_services.set_seat_result(
                request.user, game, data.get("seat_scores"), data.get("forfeits", [])
            )
        else:
            game = result_services.set_result(
                request.user, game, data.get("score0"), data.get("score1"), data.get("winner")
            )
        game.refresh_from_db()
        return Response(_games_json(game.round.tournament, [game])[0])

    @extend_schema(
        summary="Rule a forfeit with the levels at the stop (第十六条四). Permission: organisers.",
        request=ForfeitSerializer,
        responses=GameSerializer,
    )
    @action(detail=True, methods=["post"], permission_classes=AUTH)
    def forfeit(self, request: Request, pk: str | None = None) -> Response:
        """``forfeiting`` (0 / 1) and each side's level index at the stop (``stop0``,
        ``stop1``): 18:0 级分, or the game as it stood when the winner had more than 18. Every
        problem at once, by field."""
        game = self._game()
        data = request.data if isinstance(request.data, dict) else {}
        game = forfeit_services.rule_forfeit(request.user, game, data)
        game.refresh_from_db()
        return Response(_games_json(game.round.tournament, [game])[0])


@extend_schema_view(list=extend_schema(summary="Your tournament notices, newest first"))
class TournamentNoticeViewSet(viewsets.GenericViewSet):
    """The caller's on-site tournament notices."""

    permission_classes = AUTH
    serializer_class = NoticeSerializer
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[Any]:
        """The caller's notices."""
        return self.request.user.tournament_notices.all()

    def list(self, request: Request) -> Response:
        """A page of notices."""
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(NoticeSerializer(page, many=True).data)
