"""DRF authentication: named API tokens (``Authorization: Token <key>``) and the session, a
guest account (:mod:`clubs.guests`) reading only."""

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request

from clubs.models import ApiToken, User


class ApiTokenAuthentication(TokenAuthentication):
    """Look the key up by its SHA-256 digest in ``ApiToken``; record when it was last used."""

    keyword = "Token"

    def authenticate_credentials(self, key: str) -> tuple[User, ApiToken]:
        """Return ``(user, token)`` for a valid key of an active user, else raise 401."""
        try:
            token = ApiToken.objects.select_related("user").get(digest=ApiToken.digest_of(key))
        except ApiToken.DoesNotExist as error:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from error
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        if token.user.is_guest:  # a guest never gets a token; one that has is not believed
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        now = timezone.now()
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        """The ``WWW-Authenticate`` challenge sent with 401 responses."""
        return self.keyword


class SessionAuthentication(authentication.SessionAuthentication):
    """DRF's session authentication (with its CSRF check), where a guest account may only
    read: every write by a guest — any method but GET, HEAD and OPTIONS, on every endpoint,
    whatever its own permission classes say — is refused 403 ``permission_denied`` before
    the view runs. Guests play practice tables through pages and the websocket only."""

    def authenticate(self, request: Request) -> tuple[User, None] | None:
        """The session's user; raise 403 for a guest's write."""
        result = super().authenticate(request)
        if result is not None and result[0].is_guest and request.method not in SAFE_METHODS:
            raise exceptions.PermissionDenied(
                _("Sign up first: a guest can only play practice tables.")
            )
        return result
