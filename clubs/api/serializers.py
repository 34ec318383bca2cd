"""Serializers of the accounts and clubs API. They validate input; services change state."""

from typing import Any

from django.urls import reverse
from rest_framework import serializers

from clubs import selectors
from clubs.models import (
    MAX_INVITATION_USES,
    Club,
    Invitation,
    JoinPolicy,
    JoinRequest,
    Language,
    Membership,
    Role,
    User,
    Visibility,
    validate_time_zone,
)


class PublicUserSerializer(serializers.ModelSerializer):
    """What other players see of a user."""

    name = serializers.CharField(read_only=True)

    class Meta:
        model = User
        fields = ["id", "username", "name"]
        read_only_fields = fields


class CurrentUserSerializer(serializers.ModelSerializer):
    """The signed-in user's own account and profile."""

    name = serializers.CharField(read_only=True)
    language = serializers.ChoiceField(choices=Language.choices, required=False)
    time_zone = serializers.CharField(
        max_length=64, required=False, validators=[validate_time_zone]
    )
    current_password = serializers.CharField(
        write_only=True,
        required=False,
        trim_whitespace=False,
        max_length=4096,
        help_text="Your current password: required to change `email`.",
    )

    class Meta:
        model = User
        fields = [
            "id",
            "username",
            "name",
            "display_name",
            "email",
            "language",
            "time_zone",
            "current_password",
        ]
        read_only_fields = ["id", "username", "name"]


class ClubSerializer(serializers.ModelSerializer):
    """A club with its member count and the caller's role in it (null if not a member)."""

    member_count = serializers.IntegerField(read_only=True)
    my_role = serializers.SerializerMethodField()
    slug = serializers.SlugField(max_length=60, required=False, allow_blank=True)
    join_policy = serializers.ChoiceField(choices=JoinPolicy.choices, required=False)
    visibility = serializers.ChoiceField(choices=Visibility.choices, required=False)

    class Meta:
        model = Club
        fields = [
            "id",
            "slug",
            "name",
            "description",
            "city",
            "join_policy",
            "visibility",
            "created_at",
            "member_count",
            "my_role",
        ]
        read_only_fields = ["id", "created_at", "member_count", "my_role"]

    def get_my_role(self, club: Club) -> str | None:
        """The requesting user's role in the club, or null."""
        if hasattr(club, "viewer_role"):  # annotated by selectors.clubs_with_counts(viewer)
            return club.viewer_role
        request = self.context.get("request")
        membership = selectors.membership_of(getattr(request, "user", None), club)
        return membership.role if membership else None


class ClubUpdateSerializer(ClubSerializer):
    """Fields an admin may change (the address name is fixed once created)."""

    slug = serializers.SlugField(read_only=True)

    class Meta(ClubSerializer.Meta):
        read_only_fields = ["id", "slug", "created_at", "member_count", "my_role"]


class ClubRefField(serializers.SlugRelatedField):
    """A club named by its address name (slug)."""

    def __init__(self, **kwargs: object) -> None:
        if not kwargs.get("read_only"):
            kwargs.setdefault("queryset", Club.objects.all())
        super().__init__(slug_field="slug", **kwargs)


class MembershipSerializer(serializers.ModelSerializer):
    """A membership: who, which club, which role, since when."""

    club = ClubRefField(read_only=True)
    user = PublicUserSerializer(read_only=True)

    class Meta:
        model = Membership
        fields = ["id", "club", "user", "role", "joined_at"]
        read_only_fields = ["id", "club", "user", "joined_at"]


class RoleChangeSerializer(serializers.Serializer):
    """A new role for a member (``admin`` or ``member``; ownership is transferred instead)."""

    role = serializers.ChoiceField(choices=[(Role.ADMIN, "admin"), (Role.MEMBER, "member")])


class TransferOwnershipSerializer(serializers.Serializer):
    """The member (by user id) who becomes the new owner."""

    user = serializers.PrimaryKeyRelatedField(queryset=User.objects.all())


class JoinMessageSerializer(serializers.Serializer):
    """An optional message to the club's admins when asking to join."""

    message = serializers.CharField(max_length=500, required=False, allow_blank=True)


class JoinResultSerializer(serializers.Serializer):
    """The result of joining: a membership (open club) or a pending join request."""

    membership = MembershipSerializer(allow_null=True)
    join_request = serializers.SerializerMethodField()

    def get_join_request(self, obj: dict) -> dict | None:
        """The pending join request, or null when the user joined at once."""
        join_request = obj.get("join_request")
        return JoinRequestSerializer(join_request).data if join_request else None


class JoinRequestSerializer(serializers.ModelSerializer):
    """A request to join a club whose policy is *by request*."""

    club = ClubRefField()
    user = PublicUserSerializer(read_only=True)
    decided_by = PublicUserSerializer(read_only=True)

    class Meta:
        model = JoinRequest
        fields = ["id", "club", "user", "message", "status", "created_at", "decided_at"]
        fields += ["decided_by"]
        read_only_fields = ["id", "user", "status", "created_at", "decided_at", "decided_by"]


class InvitationSerializer(serializers.ModelSerializer):
    """An invitation link; ``url`` is the page a player opens to join."""

    club = ClubRefField()
    url = serializers.SerializerMethodField()
    usable = serializers.BooleanField(source="is_usable", read_only=True)
    expires_in_days = serializers.IntegerField(
        write_only=True,
        required=False,
        allow_null=True,
        min_value=1,
        max_value=365,
        help_text="Days until the link expires (default 14; null: never).",
    )
    max_uses = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=MAX_INVITATION_USES
    )

    class Meta:
        model = Invitation
        fields = [
            "id",
            "club",
            "token",
            "url",
            "created_at",
            "expires_at",
            "expires_in_days",
            "max_uses",
            "uses",
            "revoked",
            "usable",
        ]
        read_only_fields = ["id", "token", "created_at", "expires_at", "uses", "revoked"]

    def get_url(self, invitation: Invitation) -> str:
        """The absolute link to the invitation page."""
        path = reverse("invitation", kwargs={"token": invitation.token})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


class InvitationAcceptSerializer(serializers.Serializer):
    """The token of the invitation link to accept."""

    token = serializers.CharField(max_length=64)


class TokenLoginSerializer(serializers.Serializer):
    """Credentials for ``POST /api/v1/auth/token/``; ``name`` names the token (default ``api``;
    a token of that name is replaced)."""

    username = serializers.CharField(max_length=150, write_only=True)
    password = serializers.CharField(
        max_length=4096, trim_whitespace=False, write_only=True, style={"input_type": "password"}
    )
    name = serializers.CharField(max_length=60, required=False, default="api")


class IssuedTokenSerializer(serializers.Serializer):
    """A newly issued API key: shown once, only its digest is stored."""

    token = serializers.CharField(read_only=True, help_text="Send as `Authorization: Token <key>`.")
    name = serializers.CharField(read_only=True)
    prefix = serializers.CharField(read_only=True, help_text="First characters of the key.")


def request_object(data: Any) -> Any:
    """``data`` (a request's parsed body) if it is a JSON object; anything else (null, a list,
    a number) is a 400 with REST framework's own translated message, not a server error."""
    serializers.Serializer(data=data).is_valid(raise_exception=True)
    return data
