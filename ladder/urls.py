"""Ladder pages, served under ``/ladder/`` by ``config.urls``."""

from django.urls import path

from ladder import views

app_name = "ladder"

urlpatterns = [
    path("", views.ladder_list, name="list"),
    path("<int:ladder_id>/", views.leaderboard, name="leaderboard"),
    path("<int:ladder_id>/settings/", views.ladder_settings, name="settings"),
    path("<int:ladder_id>/players/<int:user_id>/", views.player, name="player"),
]
