"""The API of partner invitations (:mod:`clubs.partners`), one for every kind of event: the
``accept-partner`` and ``decline-partner`` actions of an event's viewset
(``POST /api/v1/<events>/<id>/accept-partner/`` with an optional ``{"entry": <id>}``).

A viewset mixes in :class:`PartnerAnswerActions`, names its flow, its request and response
serializers, and says how the request names the entry (:meth:`partner_entry`); its schema
(summaries, descriptions, serializers) comes from :func:`partner_schema`."""

from __future__ import annotations

from typing import Any, ClassVar, cast

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import permissions, serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from clubs.models import User
from clubs.partners import PartnerInvitations

ACCEPT_SUMMARY = "Accept the invitation to play as a pair's partner. Permission: the partner."
DECLINE_SUMMARY = "Decline the invitation to play as a pair's partner. Permission: the partner."


class PartnerAnswerActions:
    """``accept-partner`` / ``decline-partner`` for a viewset whose objects are events: the
    caller (the named partner) answers the invitation the request names, or the one naming
    them; the answer is the entry as ``partner_response`` shows it (200). Refusals are the
    flow's (400 / 403 ``{"detail", "code"}``)."""

    #: The event kind's flow.
    partners: ClassVar[PartnerInvitations[Any, Any]]
    #: Validates the request body (an optional ``entry`` id).
    partner_request: ClassVar[type[serializers.Serializer]]
    #: Shows the answered entry.
    partner_response: ClassVar[type[serializers.Serializer]]

    def partner_entry(self, event: Any, entry_id: int | None, request: Request) -> Any:
        """The pending entry of ``event`` the request answers: ``entry_id``'s, or by default
        the invitation naming the caller. Raise the event kind's refusal (or 404) when there
        is none."""
        raise NotImplementedError

    @action(
        detail=True,
        methods=["post"],
        url_path="accept-partner",
        permission_classes=[permissions.IsAuthenticated],
    )
    def accept_partner(self, request: Request, pk: str | None = None) -> Response:
        """Accept: the pending pair is entered."""
        return self._answer_partner(request, accept=True)

    @action(
        detail=True,
        methods=["post"],
        url_path="decline-partner",
        permission_classes=[permissions.IsAuthenticated],
    )
    def decline_partner(self, request: Request, pk: str | None = None) -> Response:
        """Decline: the pending entry is removed; both players may enter again."""
        return self._answer_partner(request, accept=False)

    def _answer_partner(self, request: Request, *, accept: bool) -> Response:
        event = self.get_object()  # type: ignore[attr-defined]  # the viewset's
        body = self.partner_request(data=request.data)
        body.is_valid(raise_exception=True)
        entry = self.partner_entry(event, body.validated_data.get("entry"), request)
        user = cast(User, request.user)  # the actions require a signed-in user
        answered = self.partners.answer(user, entry, accept=accept)
        return Response(self.partner_response(answered).data)


def partner_schema(
    request: type[serializers.Serializer],
    response: type[serializers.Serializer],
    *,
    accepted: str,
    declined: str,
) -> Any:
    """The schema of a viewset's partner actions (a class decorator): the shared summaries,
    the event kind's serializers and its descriptions of what ``accepted`` and ``declined``
    do."""
    return extend_schema_view(
        accept_partner=extend_schema(
            summary=ACCEPT_SUMMARY, description=accepted, request=request, responses=response
        ),
        decline_partner=extend_schema(
            summary=DECLINE_SUMMARY, description=declined, request=request, responses=response
        ),
    )
