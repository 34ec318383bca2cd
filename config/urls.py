"""Root URL configuration.

Each project app owns its URLs: its pages in ``<app>/urls.py`` (with its own namespace) and its
API in ``<app>/api/urls.py``. This file only mounts them, from the two explicit tables below,
in the layer order of ``docs/architecture.md`` (``tests/test_architecture.py`` checks the tables
against ``INSTALLED_APPS`` and that no app's URLs include a higher app's). A new app is added
here.
"""

from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from clubs.views import set_language
from config.health import healthz

#: (URL prefix, module) of every app's pages, in the layer order.
PAGES = (
    ("", "clubs.urls"),
    ("notifications/", "outbox.urls"),
    ("ladder/", "ladder.urls"),
    ("matches/", "matches.urls"),
    ("friends/", "friends.urls"),
    ("learn/", "learn.urls"),
    ("reviews/", "reviews.urls"),
    ("matches/sheets/", "sheets.urls"),
    ("tournaments/", "tournaments.urls"),
    ("ladder/", "tournaments.moved_urls"),  # tournament pages' addresses before issue 42: 301
    ("leagues/", "leagues.urls"),
    ("records/", "records.urls"),
    ("officials/", "officials.urls"),
)

#: Every app's API module, served under ``/api/v1/``, in the layer order.
APIS = (
    "clubs.api.urls",
    "outbox.api.urls",
    "ladder.api.urls",
    "reviews.api.urls",
    "sheets.api.urls",
    "tournaments.api.urls",
    "leagues.api.urls",
    "records.api.urls",
    "officials.api.urls",
)

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include([path("", include(module)) for module in APIS])),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its start-up script from a URL: the CSP allows no inline scripts.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("i18n/setlang/", set_language, name="set_language"),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    *(path(prefix, include(module)) for prefix, module in PAGES),
]

handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
