"""JSON errors for the whole API: DRF's errors, ``ClubError`` and Django's validation errors."""

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from clubs.services import ClubError


def json_exception_handler(exc: Exception, context: dict) -> Response | None:
    """Turn any expected error into a JSON response; field errors stay keyed by field.

    Shapes: ``{"detail": "...", "code": "..."}`` for general errors (with ``"field":
    ["message", ...]`` beside them for a refusal naming its fields), and
    ``{"field": ["message", ...], ...}`` for 400 validation errors (DRF's convention).
    """
    if isinstance(exc, ClubError):
        data: dict = {"detail": exc.message, "code": exc.code}
        # a refusal that names its fields (a tournament's settings) keeps each field's
        # problems under the field's name too, as DRF's field errors are
        data.update(getattr(exc, "fields", None) or {})
        return Response(data, status=exc.status)
    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "message_dict"):
            data = exc.message_dict
        else:
            data = {"detail": " ".join(exc.messages), "code": "invalid"}
        return Response(data, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict) and "detail" in response.data:
        detail = response.data["detail"]
        response.data["code"] = getattr(detail, "code", None) or getattr(
            exc, "default_code", "error"
        )
    return response
