"""Routes of score sheets: the pages under ``/matches/sheets/`` and the API under
``/api/v1/sheets/`` (included once from ``config/urls.py``)."""

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from sheets import api, views

router = SimpleRouter()
router.register("sheets", api.ScoreSheetViewSet, basename="scoresheet")

web = (
    [
        path("new/<slug:slug>/", views.sheet_new, name="new"),
        path("club/<slug:slug>/", views.club_sheets, name="club"),
        path("<int:pk>/", views.sheet_page, name="sheet"),
        path("sw.js", views.service_worker, name="service_worker"),
    ],
    "scoresheet",
)

urlpatterns = [
    path("matches/sheets/", include(web)),
    path("api/v1/", include(router.urls)),
]
