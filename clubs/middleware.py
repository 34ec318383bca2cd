"""Apply a signed-in user's language and time zone to each request."""

import zoneinfo
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation


class UserPreferencesMiddleware:
    """Activate the profile's time zone; its language wins unless a language cookie was set.

    Anonymous visitors get the language from the cookie or the browser's Accept-Language
    (``LocaleMiddleware``), falling back to Simplified Chinese.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        """Activate the user's preferences, then answer the request."""
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            try:
                timezone.activate(zoneinfo.ZoneInfo(user.time_zone))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.deactivate()
            if user.language:
                translation.activate(user.language)
                request.LANGUAGE_CODE = translation.get_language()
        else:
            timezone.deactivate()
        return self.get_response(request)
