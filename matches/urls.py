"""Web routes of live play (served under ``/matches/``)."""

from django.urls import path

from matches import moment_views, practice_views, views

app_name = "matches"

urlpatterns = [
    path("clubs/<slug:slug>/tables/", views.lobby, name="lobby"),
    path("practice/", practice_views.practice, name="practice"),
    path("tables/<int:table_id>/", views.table, name="table"),
    path("tables/<int:table_id>/seat/", views.seat, name="seat"),
    path("tables/<int:table_id>/replay/", views.replay, name="replay"),
    path("tables/<int:table_id>/referee/", views.referee, name="referee"),
    path("tables/<int:table_id>/again/", moment_views.play_again, name="again"),
    path("tables/<int:table_id>/away/", moment_views.away_summary, name="away"),
]
