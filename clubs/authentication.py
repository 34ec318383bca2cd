"""DRF authentication by named API tokens: ``Authorization: Token <key>``."""

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
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
        now = timezone.now()
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        """The ``WWW-Authenticate`` challenge sent with 401 responses."""
        return self.keyword
