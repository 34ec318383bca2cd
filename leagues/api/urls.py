"""Routes of the league API, included under ``/api/v1/`` by ``config.urls``."""

from django.urls import path

from leagues.api import views

urlpatterns = [
    path("league-fixtures/next/", views.NextFixtureView.as_view(), name="league-next-fixture"),
    *views.router.urls,
]
