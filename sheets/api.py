"""REST API of score sheets (保2记分器) under ``/api/v1/sheets/``: thin views over
:mod:`sheets.services`, with the same permissions as the web pages (club members
start and read sheets; the scorer and club admins enter and undo; a player of each side or a club
admin confirms; either side disputes; admins void)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from clubs.models import Club
from games.variants import Variant
from sheets import selectors, services
from sheets.models import ScoreSheet


class PlayerInSerializer(serializers.Serializer):
    """One seat: a club member's user id, or a guest's name."""

    user = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=services.MAX_ID
    )
    guest = serializers.CharField(required=False, allow_blank=True, max_length=60)


class OptionsSerializer(serializers.Serializer):
    """Game options the sheet may set (the engine checks them per game)."""

    colour_twos = serializers.BooleanField(required=False, help_text="Bao 2: red 2s count 2.")
    time_limit_minutes = serializers.IntegerField(
        required=False, min_value=0, max_value=600, help_text="Match clock; 0 for none."
    )
    deals = serializers.IntegerField(
        required=False, min_value=1, max_value=100, help_text="Red Two / Shuangkou: deals."
    )


class SheetCreateSerializer(serializers.Serializer):
    """Start a sheet: the club, the game, the players in seat order, options."""

    club = serializers.SlugField(help_text="The club's slug; you must be a member.")
    variant = serializers.ChoiceField(choices=Variant.choices)
    players = PlayerInSerializer(
        many=True, help_text="Seats in turn order; partners sit opposite (0+2 against 1+3)."
    )
    options = OptionsSerializer(required=False)
    rated = serializers.BooleanField(required=False, default=True)


class TwosSerializer(serializers.Serializer):
    """Natural 2s: how many, and how many of them red (♥2/♦2, counted under colour_twos)."""

    twos = serializers.IntegerField(min_value=0, max_value=8)
    red = serializers.IntegerField(min_value=0, max_value=4, required=False, default=0)


class DealOutcomeSerializer(serializers.Serializer):
    """A finished deal as seen at the table (see engine.match.TableMatch). Bao 2 / Guandan:
    finish (+ Bao 2: bao2, immune, twos_left, stuck_end). Red Two: mode, h2 / solo, receiver,
    finish, fans, dealt_fans. Shuangkou: winner, cards_left, bombs."""

    finish = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=3), required=False, max_length=4
    )
    bao2 = serializers.ListField(
        child=TwosSerializer(allow_null=True), required=False, min_length=2, max_length=2
    )
    immune = serializers.BooleanField(required=False)
    twos_left = serializers.ListField(
        child=TwosSerializer(allow_null=True), required=False, min_length=4, max_length=4
    )
    stuck_end = serializers.BooleanField(required=False)
    mode = serializers.ChoiceField(
        choices=["partnership", "solo", "surrender", "compare"], required=False
    )
    h2 = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=3), required=False, max_length=2
    )
    solo = serializers.IntegerField(min_value=0, max_value=3, required=False)
    receiver = serializers.IntegerField(min_value=0, max_value=3, required=False, allow_null=True)
    fans = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=40), required=False, max_length=4
    )
    dealt_fans = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=5), required=False, max_length=4
    )
    winner = serializers.IntegerField(min_value=0, max_value=1, required=False)
    cards_left = serializers.IntegerField(min_value=1, max_value=27, required=False)
    bombs = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=4, max_value=12)),
        required=False,
        max_length=2,
    )


class EntryInSerializer(serializers.Serializer):
    """One entry: exactly one of ``deal``, ``card`` (with ``team``, or ``seat`` in point games)
    or ``time_up``; ``key`` is a UUID made by the client (resending it adds nothing)."""

    key = serializers.UUIDField()
    deal = DealOutcomeSerializer(required=False)
    card = serializers.ChoiceField(choices=["yellow", "red", "forfeit"], required=False)
    team = serializers.IntegerField(min_value=0, max_value=1, required=False)
    seat = serializers.IntegerField(min_value=0, max_value=3, required=False)
    time_up = serializers.BooleanField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Exactly one kind of entry."""
        kinds = [k for k in ("deal", "card", "time_up") if attrs.get(k) not in (None, False)]
        if len(kinds) != 1:
            raise ValidationError(
                {"entry": [services.refusal_message("bad_entry")]}, code="bad_entry"
            )
        return attrs

    def engine_entry(self) -> dict[str, Any]:
        """The entry in the engine's form."""
        data = self.validated_data
        if "deal" in data and data["deal"] is not None:
            deal = dict(data["deal"])
            for name in ("bao2", "twos_left"):
                if name in deal:
                    deal[name] = [dict(x) if x is not None else None for x in deal[name]]
            return {"deal": deal}
        if data.get("card"):
            out: dict[str, Any] = {"card": data["card"]}
            out.update({k: data[k] for k in ("team", "seat") if k in data})
            return out
        return {"time_up": True}


class KeySerializer(serializers.Serializer):
    """An idempotency key (UUID made by the client)."""

    key = serializers.UUIDField()


class DisputeSerializer(serializers.Serializer):
    """Why the result is disputed."""

    reason = serializers.CharField(required=False, allow_blank=True, max_length=500)


class SheetSerializer(serializers.Serializer):
    """A sheet as the page shows it (see matches.scoresheet_selectors.sheet_json)."""

    id = serializers.IntegerField()
    club = serializers.CharField()
    variant = serializers.CharField()
    options = serializers.DictField()
    rated = serializers.BooleanField()
    status = serializers.CharField(help_text="playing, finished, confirmed, disputed, voided")
    status_display = serializers.CharField()
    version = serializers.IntegerField()
    scorer = serializers.CharField(allow_null=True)
    players = serializers.ListField(child=serializers.DictField())
    state = serializers.DictField(help_text="engine.match.TableMatch.state()")
    record = serializers.ListField(child=serializers.DictField())
    verdicts = serializers.ListField(child=serializers.DictField())
    now = serializers.DateTimeField(help_text="the server's time when it answered")
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    time_limit_seconds = serializers.IntegerField()
    ends_at = serializers.DateTimeField(allow_null=True)
    can = serializers.DictField(child=serializers.BooleanField())
    my_side = serializers.IntegerField(allow_null=True)


class EntryOutSerializer(serializers.Serializer):
    """The answer to an entry: whether it was new, its seq and the sheet after it."""

    created = serializers.BooleanField()
    seq = serializers.IntegerField()
    sheet = SheetSerializer()


def _raise_field_error(error: services.SheetError) -> None:
    if error.field and error.field not in ("key",):
        outer = "deal" if error.field not in ("card", "team", "seat", "entry") else None
        inner = {error.field: [error.message]}
        body: dict[str, Any] = {outer: inner} if outer else inner
        body["code"] = error.code
        raise ValidationError(body, code=error.code)
    raise error


class ScoreSheetViewSet(viewsets.GenericViewSet):
    """Score sheets of the clubs you belong to."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = SheetSerializer
    pagination_class = None
    queryset = ScoreSheet.objects.none()

    def get_queryset(self) -> QuerySet[ScoreSheet]:
        """Sheets of the caller's clubs."""
        if getattr(self, "swagger_fake_view", False):
            return ScoreSheet.objects.none()
        return ScoreSheet.objects.filter(club__memberships__user=self.request.user).order_by(
            "-started_at", "-id"
        )

    def _sheet(self, pk: str | None) -> ScoreSheet:
        try:
            number = int(pk or "")
        except ValueError:
            number = 0
        return services.get_sheet(self.request.user, number)

    def _out(self, sheet: ScoreSheet, code: int = status.HTTP_200_OK) -> Response:
        sheet.refresh_from_db()
        return Response(selectors.sheet_json(sheet, self.request.user), status=code)

    @extend_schema(summary="Your clubs' score sheets, newest first. Permission: signed in.")
    def list(self, request: Request) -> Response:
        """Up to 100 sheets of the caller's clubs."""
        sheets = self.get_queryset().select_related("club", "scorer")[:100]
        return Response([selectors.sheet_json(s, request.user) for s in sheets])

    @extend_schema(summary="A score sheet with its deal record. Permission: club member.")
    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        """One sheet."""
        return self._out(self._sheet(pk))

    @extend_schema(
        summary="Start a score sheet; you become its scorer. Permission: club member.",
        request=SheetCreateSerializer,
        responses={201: SheetSerializer},
    )
    def create(self, request: Request) -> Response:
        """Start a sheet through ``start_sheet``."""
        data_in = SheetCreateSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        data = data_in.validated_data
        club = get_object_or_404(Club, slug=data["club"])
        players = [
            services.PlayerSpec(user_id=p.get("user"), guest_name=p.get("guest", "") or "")
            for p in data["players"]
        ]
        try:
            sheet = services.start_sheet(
                request.user,
                club,
                variant=data["variant"],
                players=players,
                options=dict(data.get("options") or {}),
                rated=data.get("rated", True),
            )
        except services.SheetError as error:
            if error.field:
                raise ValidationError({error.field: [error.message], "code": error.code}) from None
            raise
        return self._out(sheet, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Add a deal, a referee card or time up. Permission: the scorer or a club admin.",
        description=(
            "Idempotent on `key`: sending the same key again (an offline queue resending) "
            "answers 200 with `created` false and adds nothing. A new entry answers 201."
        ),
        request=EntryInSerializer,
        responses={200: EntryOutSerializer, 201: EntryOutSerializer},
    )
    @action(detail=True, methods=["post"])
    def entries(self, request: Request, pk: str | None = None) -> Response:
        """Add an entry through ``add_entry``."""
        sheet = self._sheet(pk)
        data_in = EntryInSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        try:
            outcome = services.add_entry(
                request.user, sheet, data_in.engine_entry(), data_in.validated_data["key"]
            )
        except services.SheetError as error:
            _raise_field_error(error)
        return self._entry_out(sheet, outcome)

    def _entry_out(self, sheet: ScoreSheet, outcome: services.EntryOutcome) -> Response:
        sheet.refresh_from_db()
        body = {
            "created": outcome.created,
            "seq": outcome.entry.seq,
            "sheet": selectors.sheet_json(sheet, self.request.user),
        }
        return Response(body, status=status.HTTP_201_CREATED if outcome.created else 200)

    @extend_schema(
        summary="Undo the last deal (or card). Permission: the scorer or a club admin.",
        description="Idempotent on `key`, like adding an entry.",
        request=KeySerializer,
        responses={200: EntryOutSerializer, 201: EntryOutSerializer},
    )
    @action(detail=True, methods=["post"])
    def undo(self, request: Request, pk: str | None = None) -> Response:
        """Undo through ``undo_last``."""
        sheet = self._sheet(pk)
        data_in = KeySerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        outcome = services.undo_last(request.user, sheet, data_in.validated_data["key"])
        return self._entry_out(sheet, outcome)

    @extend_schema(
        summary="Confirm a finished sheet. Permission: a player of a side, or a club admin.",
        description="It counts once a player of each side (or one club admin) has confirmed.",
        request=None,
        responses={200: SheetSerializer},
    )
    @action(detail=True, methods=["post"])
    def confirm(self, request: Request, pk: str | None = None) -> Response:
        """Confirm through ``confirm``."""
        return self._out(services.confirm(request.user, self._sheet(pk)))

    @extend_schema(
        summary="Dispute a finished sheet. Permission: a player of a side, or a club admin.",
        description="The club's admins are emailed the deal record.",
        request=DisputeSerializer,
        responses={200: SheetSerializer},
    )
    @action(detail=True, methods=["post"])
    def dispute(self, request: Request, pk: str | None = None) -> Response:
        """Dispute through ``dispute``."""
        sheet = self._sheet(pk)
        data_in = DisputeSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        reason = data_in.validated_data.get("reason", "")
        return self._out(services.dispute(request.user, sheet, reason))

    @extend_schema(
        summary="Void an unconfirmed sheet. Permission: club admin.",
        request=None,
        responses={200: SheetSerializer},
    )
    @action(detail=True, methods=["post"])
    def void(self, request: Request, pk: str | None = None) -> Response:
        """Void through ``void``."""
        return self._out(services.void(request.user, self._sheet(pk)))
