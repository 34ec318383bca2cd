"""API views of accounts and clubs: thin wrappers that validate input and call services.

Permissions are checked by ``clubs.services`` through ``clubs.permissions``, exactly as for the
web pages; a refused action answers with JSON ``{"detail", "code"}`` and status 400/403/404.
"""

import django_filters
from django.conf import settings
from django.contrib.auth import authenticate
from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.generics import RetrieveUpdateAPIView, get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from clubs import permissions as club_permissions
from clubs import selectors, services
from clubs.api import serializers as s
from clubs.authentication import ApiTokenAuthentication
from clubs.models import (
    Club,
    Invitation,
    JoinPolicy,
    JoinRequest,
    JoinRequestStatus,
    Membership,
    Role,
    User,
    Visibility,
)


@extend_schema_view(
    get=extend_schema(summary="Your account and profile. Permission: signed in."),
    put=extend_schema(summary="Replace your profile fields. Permission: signed in."),
    patch=extend_schema(summary="Change your profile fields. Permission: signed in."),
)
class CurrentUserView(RetrieveUpdateAPIView):
    """The signed-in user's account and profile. Permission: signed in."""

    serializer_class = s.CurrentUserSerializer
    permission_classes = [permissions.IsAuthenticated]

    def get_object(self) -> User:
        """The requesting user."""
        return self.request.user

    def perform_update(self, serializer: BaseSerializer) -> None:
        """Save the profile through ``services.update_profile``."""
        data = serializer.validated_data
        services.update_profile(
            self.request.user,
            display_name=data.get("display_name"),
            language=data.get("language"),
            time_zone=data.get("time_zone"),
            email=data.get("email"),
            current_password=data.get("current_password"),
        )


class TokenView(APIView):
    """``/api/v1/auth/token/``: sign in with a username and password for an API key (POST), or
    revoke the key the request is authenticated with (DELETE). Failed sign-ins count towards
    django-axes' lockout exactly like the web login."""

    authentication_classes = [ApiTokenAuthentication]

    def get_permissions(self) -> list[permissions.BasePermission]:
        """Anyone may sign in; only a request authenticated by a token may revoke it."""
        if self.request.method == "DELETE":
            return [permissions.IsAuthenticated()]
        return [permissions.AllowAny()]

    @extend_schema(
        summary="Sign in for an API key (a token of the same name is replaced). Permission: any.",
        request=s.TokenLoginSerializer,
        responses={200: s.IssuedTokenSerializer},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        """Check the credentials through ``authenticate`` (so django-axes counts failures and
        locks the username from this address) and answer a fresh key; 400 with field-keyed
        errors for bad credentials, the lockout status (429) when locked out."""
        serializer = s.TokenLoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        user = authenticate(request=request, username=data["username"], password=data["password"])
        if getattr(request, "axes_locked_out", False):
            message = _(
                "Too many failed log-in attempts. Wait 15 minutes and try again, or reset "
                "your password."
            )
            return Response(
                {"detail": message, "code": "locked_out"},
                status=getattr(settings, "AXES_HTTP_RESPONSE_CODE", 429),
            )
        if user is None:
            message = _("Unable to log in with that username and password.")
            raise ValidationError({"non_field_errors": [message]}, code="invalid_credentials")
        token, key = services.issue_login_token(user, data["name"])
        issued = s.IssuedTokenSerializer({"token": key, "name": token.name, "prefix": token.prefix})
        return Response(issued.data)

    @extend_schema(
        summary="Revoke the API key this request is authenticated with. Permission: token.",
        request=None,
        responses={204: None},
    )
    def delete(self, request: Request) -> Response:
        """Delete the token in ``Authorization: Token <key>``; it is refused from then on."""
        services.revoke_api_token(request.user, request.auth.pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ClubFilter(django_filters.FilterSet):
    """Filter clubs by join policy, city, or membership of the caller (``mine=true``)."""

    join_policy = django_filters.ChoiceFilter(choices=JoinPolicy.choices)
    city = django_filters.CharFilter(lookup_expr="icontains")
    mine = django_filters.BooleanFilter(method="filter_mine", label="Only clubs I belong to")

    class Meta:
        model = Club
        fields = ["join_policy", "city", "mine"]

    def filter_mine(self, queryset: QuerySet[Club], name: str, value: bool) -> QuerySet[Club]:
        """Keep (or drop) the clubs the requesting user belongs to."""
        user = self.request.user if self.request else None
        if value is None or user is None or not user.is_authenticated:
            return queryset.none() if value else queryset
        if value:
            return queryset.filter(memberships__user=user)
        return queryset.exclude(memberships__user=user)


@extend_schema_view(
    list=extend_schema(summary="List clubs (public)"),
    retrieve=extend_schema(summary="A club's public page data"),
    create=extend_schema(summary="Create a club; you become its owner. Permission: signed in."),
    partial_update=extend_schema(
        summary="Edit a club. Permission: club owner or admin.", request=s.ClubUpdateSerializer
    ),
    update=extend_schema(
        summary="Replace a club's details. Permission: club owner or admin.",
        request=s.ClubUpdateSerializer,
    ),
    destroy=extend_schema(summary="Delete a club. Permission: club owner."),
)
class ClubViewSet(viewsets.ModelViewSet):
    """Clubs: anyone reads; signed-in users create; admins edit; the owner deletes."""

    serializer_class = s.ClubSerializer
    lookup_field = "slug"
    filterset_class = ClubFilter
    search_fields = ["name", "city", "description"]
    ordering_fields = ["name", "created_at", "member_count"]
    ordering = ["name"]

    def get_queryset(self) -> QuerySet[Club]:
        """All clubs with their member counts and the caller's role."""
        return selectors.clubs_with_counts(self.request.user)

    def get_serializer_class(self) -> type[BaseSerializer]:
        """Updates may not change the slug."""
        if self.action in ("update", "partial_update"):
            return s.ClubUpdateSerializer
        return super().get_serializer_class()

    def create(self, request: Request, *args: object, **kwargs: object) -> Response:
        """Create a club through ``services.create_club``."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        club = services.create_club(
            request.user,
            name=data["name"],
            description=data.get("description", ""),
            city=data.get("city", ""),
            join_policy=data.get("join_policy", JoinPolicy.REQUEST),
            visibility=data.get("visibility", Visibility.PUBLIC),
            slug=data.get("slug", ""),
        )
        club = self.get_queryset().get(pk=club.pk)
        return Response(self.get_serializer(club).data, status=status.HTTP_201_CREATED)

    def update(self, request: Request, *args: object, **kwargs: object) -> Response:
        """Edit a club through ``services.update_club``."""
        club = self.get_object()
        serializer = self.get_serializer(
            club, data=request.data, partial=kwargs.pop("partial", False)
        )
        serializer.is_valid(raise_exception=True)
        services.update_club(request.user, club, **serializer.validated_data)
        return Response(self.get_serializer(self.get_queryset().get(pk=club.pk)).data)

    def destroy(self, request: Request, *args: object, **kwargs: object) -> Response:
        """Delete a club through ``services.delete_club``."""
        services.delete_club(request.user, self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Join a club. Permission: signed in.",
        description=(
            "Open club: you become a member at once (201, `membership` set). Club by request: a "
            "pending join request is filed (202, `join_request` set). Invitation-only club: 400 "
            "with code `invitation_required`."
        ),
        request=s.JoinMessageSerializer,
        responses={201: s.JoinResultSerializer, 202: s.JoinResultSerializer},
    )
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def join(self, request: Request, slug: str | None = None) -> Response:
        """Join an open club or ask to join a club by request."""
        serializer = s.JoinMessageSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = services.join_club(
            request.user, self.get_object(), message=serializer.validated_data.get("message", "")
        )
        if isinstance(result, Membership):
            body = {"membership": s.MembershipSerializer(result).data, "join_request": None}
            return Response(body, status=status.HTTP_201_CREATED)
        body = {"membership": None, "join_request": s.JoinRequestSerializer(result).data}
        return Response(body, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="Leave a club. Permission: member (not the owner).",
        request=None,
        responses={204: None},
    )
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def leave(self, request: Request, slug: str | None = None) -> Response:
        """Leave the club; the owner must transfer ownership first."""
        services.leave_club(request.user, self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Transfer ownership to another member. Permission: club owner.",
        request=s.TransferOwnershipSerializer,
        responses={200: s.MembershipSerializer},
    )
    @action(
        detail=True,
        methods=["post"],
        url_path="transfer-ownership",
        permission_classes=[permissions.IsAuthenticated],
    )
    def transfer_ownership(self, request: Request, slug: str | None = None) -> Response:
        """Make another member the owner; the old owner becomes an admin."""
        serializer = s.TransferOwnershipSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = services.transfer_ownership(
            request.user, self.get_object(), serializer.validated_data["user"]
        )
        return Response(s.MembershipSerializer(membership).data)


class MembershipFilter(django_filters.FilterSet):
    """Filter memberships by club (slug), role or user id."""

    club = django_filters.CharFilter(field_name="club__slug")
    role = django_filters.ChoiceFilter(choices=Role.choices)

    class Meta:
        model = Membership
        fields = ["club", "role", "user"]


@extend_schema_view(
    list=extend_schema(
        summary="List memberships (filter by club, role, user); a members-only club's to its "
        "members only"
    ),
    retrieve=extend_schema(summary="One membership (404 in a members-only club you are not in)"),
    partial_update=extend_schema(
        summary="Change a member's role. Permission: club owner.",
        request=s.RoleChangeSerializer,
    ),
    destroy=extend_schema(
        summary="Remove a member. Permission: owner (anyone), admin (plain members)."
    ),
)
class MembershipViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Club memberships and roles."""

    serializer_class = s.MembershipSerializer
    filterset_class = MembershipFilter
    ordering_fields = ["joined_at", "role"]
    ordering = ["club_id", "joined_at"]
    http_method_names = ["get", "patch", "delete", "head", "options"]

    def get_queryset(self) -> QuerySet[Membership]:
        """The memberships of the clubs the caller may see (a members-only club's to its
        members only), with their clubs and users."""
        visible = club_permissions.visible_clubs_filter(self.request.user, "club")
        return (
            Membership.objects.filter(visible)
            .select_related("club", "user")
            .order_by("club_id", "joined_at")
        )

    def partial_update(self, request: Request, *args: object, **kwargs: object) -> Response:
        """Change the member's role through ``services.change_role``."""
        serializer = s.RoleChangeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = services.change_role(
            request.user, self.get_object(), serializer.validated_data["role"]
        )
        return Response(s.MembershipSerializer(membership).data)

    def destroy(self, request: Request, *args: object, **kwargs: object) -> Response:
        """Remove the member through ``services.remove_member``."""
        services.remove_member(request.user, self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


class JoinRequestFilter(django_filters.FilterSet):
    """Filter join requests by club (slug) or status."""

    club = django_filters.CharFilter(field_name="club__slug")
    status = django_filters.ChoiceFilter(choices=JoinRequestStatus.choices)

    class Meta:
        model = JoinRequest
        fields = ["club", "status"]


@extend_schema_view(
    list=extend_schema(summary="Your join requests and those of clubs you administer"),
    retrieve=extend_schema(summary="One join request. Permission: requester or club admin."),
    create=extend_schema(
        summary="Ask to join a club whose policy is by request. Permission: signed in.",
    ),
)
class JoinRequestViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Join requests: players file them; club owners and admins accept or decline them."""

    serializer_class = s.JoinRequestSerializer
    permission_classes = [permissions.IsAuthenticated]
    filterset_class = JoinRequestFilter
    ordering = ["-created_at"]

    def get_queryset(self) -> QuerySet[JoinRequest]:
        """The requests the user may see."""
        if getattr(self, "swagger_fake_view", False):
            return JoinRequest.objects.none()
        return selectors.join_requests_visible_to(self.request.user).order_by("-created_at")

    def create(self, request: Request, *args: object, **kwargs: object) -> Response:
        """File a join request through ``services.request_to_join``."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        join_request = services.request_to_join(
            request.user,
            serializer.validated_data["club"],
            message=serializer.validated_data.get("message", ""),
        )
        return Response(self.get_serializer(join_request).data, status=status.HTTP_201_CREATED)

    def _answer(self, decide: object, pk: str | None) -> Response:
        # DRF's lookup answers 404 for an id that is not a number (Django's raises ValueError).
        join_request = get_object_or_404(self.get_queryset(), pk=pk)
        result = decide(self.request.user, join_request.pk)
        if isinstance(result, Membership):
            result = JoinRequest.objects.get(pk=pk)
        return Response(self.get_serializer(result).data)

    @extend_schema(summary="Accept: the requester becomes a member. Permission: club admin.")
    @action(detail=True, methods=["post"], serializer_class=s.JoinRequestSerializer)
    def accept(self, request: Request, pk: str | None = None) -> Response:
        """Accept a pending request."""
        return self._answer(services.accept_join_request, pk)

    @extend_schema(summary="Decline a pending request. Permission: club admin.", request=None)
    @action(detail=True, methods=["post"])
    def decline(self, request: Request, pk: str | None = None) -> Response:
        """Decline a pending request."""
        return self._answer(services.decline_join_request, pk)

    @extend_schema(
        summary="Withdraw your own pending request. Permission: requester.", request=None
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """Cancel one's own pending request."""
        return self._answer(services.cancel_join_request, pk)


class InvitationFilter(django_filters.FilterSet):
    """Filter invitation links by club (slug) or revoked flag."""

    club = django_filters.CharFilter(field_name="club__slug")

    class Meta:
        model = Invitation
        fields = ["club", "revoked"]


@extend_schema_view(
    list=extend_schema(summary="Invitation links of the clubs you administer"),
    retrieve=extend_schema(summary="One invitation link. Permission: club admin."),
    create=extend_schema(summary="Create an invitation link. Permission: club owner or admin."),
)
class InvitationViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Invitation links: admins create and revoke them; anyone signed in accepts one."""

    serializer_class = s.InvitationSerializer
    permission_classes = [permissions.IsAuthenticated]
    filterset_class = InvitationFilter
    ordering = ["-created_at"]

    def get_queryset(self) -> QuerySet[Invitation]:
        """The links of clubs the user administers."""
        if getattr(self, "swagger_fake_view", False):
            return Invitation.objects.none()
        return selectors.invitations_visible_to(self.request.user).order_by("-created_at")

    def create(self, request: Request, *args: object, **kwargs: object) -> Response:
        """Create a link through ``services.create_invitation``."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        invitation = services.create_invitation(
            request.user,
            data["club"],
            max_uses=data.get("max_uses"),
            expires_in_days=data.get("expires_in_days", 14),
        )
        return Response(self.get_serializer(invitation).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Revoke an invitation link. Permission: club admin.", request=None)
    @action(detail=True, methods=["post"])
    def revoke(self, request: Request, pk: str | None = None) -> Response:
        """Revoke the link."""
        invitation = services.revoke_invitation(request.user, self.get_object())
        return Response(self.get_serializer(invitation).data)

    @extend_schema(
        summary="Join a club with an invitation link's token. Permission: signed in.",
        request=s.InvitationAcceptSerializer,
        responses={201: s.MembershipSerializer},
    )
    @action(detail=False, methods=["post"])
    def accept(self, request: Request) -> Response:
        """Accept an invitation by its token."""
        serializer = s.InvitationAcceptSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = services.accept_invitation(request.user, serializer.validated_data["token"])
        return Response(s.MembershipSerializer(membership).data, status=status.HTTP_201_CREATED)
