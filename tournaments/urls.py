"""Tournament pages, included by ``ladder.urls`` (so under ``/ladder/``, names ``ladder:...``)."""

from django.urls import path

from tournaments import views

urlpatterns = [
    path("clubs/<slug:slug>/tournaments/", views.club_tournaments, name="club_tournaments"),
    path("clubs/<slug:slug>/tournaments/new/", views.tournament_create, name="tournament_create"),
    path("clubs/<slug:slug>/tournaments.ics", views.club_calendar, name="club_calendar"),
    path("tournaments/<int:pk>/", views.tournament_detail, name="tournament"),
    path("tournaments/<int:pk>/edit/", views.tournament_edit, name="tournament_edit"),
    path("tournaments/<int:pk>/run/", views.tournament_run, name="tournament_run"),
    path(
        "tournaments/<int:pk>/standings/", views.tournament_standings, name="tournament_standings"
    ),
    path(
        "tournaments/<int:pk>/standings.csv", views.standings_csv, name="tournament_standings_csv"
    ),
    path("tournaments/<int:pk>/results.csv", views.results_csv, name="tournament_results_csv"),
    path("tournaments/<int:pk>/print/", views.tournament_print, name="tournament_print"),
    path("tournaments/<int:pk>/bracket/", views.tournament_bracket, name="tournament_bracket"),
    path(
        "tournaments/<int:pk>/rounds/<int:number>/", views.round_pairings, name="tournament_round"
    ),
    path(
        "tournaments/<int:pk>/entries/<int:entry_id>/",
        views.entry_results,
        name="tournament_entry",
    ),
    path(
        "tournaments/<int:pk>/do/<slug:action>/",
        views.tournament_action,
        name="tournament_action",
    ),
]
