"""Routes of the league API, included under ``/api/v1/`` by ``config.urls``."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from leagues.api import views

router = SimpleRouter()
router.register("leagues", views.LeagueViewSet, basename="league")
router.register("league-seasons", views.SeasonViewSet, basename="league-season")
router.register("league-fixtures", views.FixtureViewSet, basename="league-fixture")
router.register("league-entries", views.EntryViewSet, basename="league-entry")

urlpatterns = [
    path("league-fixtures/next/", views.NextFixtureView.as_view(), name="league-next-fixture"),
    *router.urls,
]
