"""OpenAPI schema helpers: every operation documents the errors it can answer with."""

from drf_spectacular.authentication import SessionScheme
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    """A general error: a human message and a stable machine code."""

    detail = serializers.CharField(help_text="What went wrong, in the user's language.")
    code = serializers.CharField(help_text="Stable code, e.g. not_allowed, already_member.")


class ValidationErrorSerializer(serializers.Serializer):
    """A 400 answer: either field errors keyed by field name, or ``detail`` and ``code``."""

    detail = serializers.CharField(required=False)
    code = serializers.CharField(required=False)
    field_name = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="One key per invalid field, each with a list of messages.",
    )


class ErrorDocumentingAutoSchema(AutoSchema):
    """AutoSchema that adds the JSON error responses (400/401/403/404/429) to each operation."""

    def _get_response_bodies(self, direction: str = "response") -> dict:
        responses = super()._get_response_bodies(direction)
        writes = self.method in ("POST", "PUT", "PATCH", "DELETE")
        extra: dict[str, tuple[type[serializers.Serializer], str]] = {}
        if writes:
            extra["400"] = (ValidationErrorSerializer, "Invalid input or refused action.")
        if writes or self._requires_auth():
            extra["401"] = (ErrorSerializer, "Not signed in or the token is invalid.")
            extra["403"] = (ErrorSerializer, "Signed in, but without the role this needs.")
        if "{" in self.path:
            extra["404"] = (ErrorSerializer, "No such object (or not visible to you).")
        extra["429"] = (ErrorSerializer, "Too many requests; try again later.")
        for code, (serializer, description) in extra.items():
            if code not in responses:
                response = self._get_response_for_code(serializer, code, direction=direction)
                response["description"] = description
                responses[code] = response
        return responses

    def _requires_auth(self) -> bool:
        from rest_framework.permissions import IsAuthenticated

        return any(isinstance(p, IsAuthenticated) for p in self.view.get_permissions())


class GuestReadOnlySessionScheme(SessionScheme):
    """The session cookie of :class:`clubs.authentication.SessionAuthentication` (DRF's session
    authentication, where a guest account may only read), documented as DRF's own."""

    target_class = "clubs.authentication.SessionAuthentication"
