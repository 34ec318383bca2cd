"""Root URL configuration.

Apps other than ``clubs`` plug in without editing this file: if ``<app>/urls.py`` exists it is
served under ``/<app>/``; if ``<app>/api/urls.py`` exists it is served under ``/api/v1/``.
"""

import importlib

from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from clubs.views import set_language
from config.health import healthz


def _optional_include(module_name: str) -> object | None:
    """Return ``include(module_name)`` if the module exists, else None."""
    try:
        importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name and not module_name.startswith(str(error.name) + "."):
            raise
        return None
    return include(module_name)


api_patterns = [path("", include("clubs.api.urls")), path("", include("outbox.api_urls"))]
app_patterns = []
for _app in ("matches", "ladder", "leagues", "friends", "learn"):
    _api = _optional_include(f"{_app}.api.urls")
    if _api is not None:
        api_patterns.append(path("", _api))
    _web = _optional_include(f"{_app}.urls")
    if _web is not None:
        app_patterns.append(path(f"{_app}/", _web))

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_patterns)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its start-up script from a URL: the CSP allows no inline scripts.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("i18n/setlang/", set_language, name="set_language"),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    *app_patterns,
    path("notifications/", include("outbox.urls")),
    path("", include("sheets.urls")),  # score sheets (pages + API)
    path("", include("clubs.urls")),
]

handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
