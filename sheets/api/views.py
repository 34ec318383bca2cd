"""REST API of score sheets (保2记分器) under ``/api/v1/sheets/`` (routes in :mod:`sheets.api.urls`):
thin views over :mod:`sheets.services`, with the same permissions as the web pages (club
members start and read sheets; the scorer and club admins enter and undo; a player of each side
or a club admin confirms; either side disputes; admins void)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from clubs.models import Club
from sheets import selectors, services
from sheets.api.serializers import (
    DisputeSerializer,
    EntryInSerializer,
    EntryOutSerializer,
    KeySerializer,
    SheetCreateSerializer,
    SheetSerializer,
)
from sheets.models import ScoreSheet


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
