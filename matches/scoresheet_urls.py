"""Routes of score sheets: the pages under ``/matches/sheets/`` and the API under
``/api/v1/sheets/`` (included once from ``config/urls.py``)."""

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from matches import scoresheet_api, scoresheet_views

router = SimpleRouter()
router.register("sheets", scoresheet_api.ScoreSheetViewSet, basename="scoresheet")

web = (
    [
        path("new/<slug:slug>/", scoresheet_views.sheet_new, name="new"),
        path("club/<slug:slug>/", scoresheet_views.club_sheets, name="club"),
        path("<int:pk>/", scoresheet_views.sheet_page, name="sheet"),
        path("sw.js", scoresheet_views.service_worker, name="service_worker"),
    ],
    "scoresheet",
)

urlpatterns = [
    path("matches/sheets/", include(web)),
    path("api/v1/", include(router.urls)),
]
