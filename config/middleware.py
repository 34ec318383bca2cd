"""Refuse requests carrying NUL characters before any view or database sees them.

PostgreSQL cannot store or compare text containing NUL (``\\x00``): a query with one raises
``ValueError`` deep in the driver, which would surface as a 500. No legitimate input of this
site contains NUL, so one middleware answers such requests with a clear, translated 400 (JSON
under ``/api/``) for every page, form and API endpoint alike.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator

from django.http import HttpRequest, HttpResponse, QueryDict
from django.http.multipartparser import MultiPartParserError
from django.utils import translation

NUL = "\x00"


def _strings(value: object) -> Iterator[str]:
    """Yield every string (keys included) inside parsed JSON."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _query_dict_strings(data: QueryDict) -> Iterator[str]:
    for key, values in data.lists():
        yield key
        yield from values


def _any_nul(strings: Iterable[str]) -> bool:
    return any(NUL in text for text in strings)


def _body_has_nul(request: HttpRequest) -> bool:
    """Whether the form fields or JSON body of the request contain a NUL character.

    Uploaded files may hold any bytes and are not inspected; their names are.
    """
    content_type = request.content_type or ""
    if content_type == "application/x-www-form-urlencoded":
        body = request.body
        if b"\x00" not in body and b"%00" not in body:
            return False
        data = QueryDict(body, encoding=request.encoding)
        return _any_nul(_query_dict_strings(data))
    if content_type == "multipart/form-data":
        if request.method != "POST":
            return False  # Django parses multipart bodies of POST requests only.
        return _any_nul(_query_dict_strings(request.POST)) or _any_nul(
            [name for name, upload in request.FILES.items()]
            + [upload.name or "" for upload in request.FILES.values()]
        )
    if content_type == "application/json" or content_type.endswith("+json"):
        body = request.body
        if b"\\u0000" not in body and b"\x00" not in body:
            return False
        try:
            data = json.loads(body)
        except ValueError:
            return b"\x00" in body  # invalid JSON otherwise left to the parser's own 400
        return _any_nul(_strings(data))
    return False


def request_has_nul(request: HttpRequest) -> bool:
    """Whether the path, query string, headers, cookies or body fields contain NUL."""
    if NUL in request.path_info:
        return True
    if _any_nul(_query_dict_strings(request.GET)):
        return True
    if _any_nul(value for key, value in request.META.items() if key.startswith("HTTP_")):
        return True
    if _any_nul(list(request.COOKIES) + list(request.COOKIES.values())):
        return True
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return False
    return _body_has_nul(request)


class RejectNulMiddleware:
    """Answer 400 (code ``nul_character``) for requests containing NUL characters.

    A multipart body that cannot be parsed (e.g. no boundary) gets the plain 400 answer
    (code ``bad_request``) here too, since reading its fields is the only way to check them.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        """Refuse the request if it carries NUL anywhere, else pass it on."""
        from config import errors

        try:
            refuse, answer = request_has_nul(request), errors.nul_character
        except MultiPartParserError:
            refuse, answer = True, errors.bad_request
        if not refuse:
            return self.get_response(request)
        # Runs before the locale middleware: choose the language from the cookie or the
        # browser, as LocaleMiddleware would for this request.
        language = translation.get_language_from_request(request)
        with translation.override(language):
            request.LANGUAGE_CODE = language
            return answer(request)
