"""Routes of the statistics API, included under ``/api/v1/`` by ``config.urls``."""

from django.urls import path

from records.api import views

urlpatterns = [
    path(
        "players/<int:user_id>/statistics/",
        views.PlayerStatisticsView.as_view(),
        name="player-statistics",
    ),
    path("clubs/<slug:slug>/honours/", views.ClubHonoursView.as_view(), name="club-honours"),
]
