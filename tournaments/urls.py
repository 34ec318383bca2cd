"""Tournament pages, served under ``/tournaments/`` by ``config.urls`` (names ``tournaments:...``).

Until issue 42 they lived under ``/ladder/`` (names ``ladder:...``);
:mod:`tournaments.moved_urls` answers those addresses with a permanent redirect.
"""

from django.urls import path

from tournaments import stage_views, team_views, views

app_name = "tournaments"

urlpatterns = [
    path("clubs/<slug:slug>/", views.club_tournaments, name="club"),
    path("clubs/<slug:slug>/new/", views.tournament_create, name="create"),
    path("clubs/<slug:slug>/calendar.ics", views.club_calendar, name="club_calendar"),
    path("<int:pk>/", views.tournament_detail, name="detail"),
    path("<int:pk>/edit/", views.tournament_edit, name="edit"),
    path("<int:pk>/run/", views.tournament_run, name="run"),
    path("<int:pk>/standings/", views.tournament_standings, name="standings"),
    path("<int:pk>/standings.csv", views.standings_csv, name="standings_csv"),
    path("<int:pk>/results.csv", views.results_csv, name="results_csv"),
    path("<int:pk>/print/", views.tournament_print, name="print"),
    path("<int:pk>/bracket/", views.tournament_bracket, name="bracket"),
    path("<int:pk>/rounds/<int:number>/", views.round_pairings, name="round"),
    path("<int:pk>/entries/<int:entry_id>/", views.entry_results, name="entry"),
    path("<int:pk>/do/<slug:action>/", views.tournament_action, name="action"),
    path("<int:pk>/next-stage/", stage_views.next_stage, name="next_stage"),
    path("<int:pk>/teams/", team_views.teams_page, name="teams"),
    path("<int:pk>/teams.csv", team_views.teams_csv, name="teams_csv"),
    path("<int:pk>/teams/<int:team>/roster/", team_views.roster_page, name="team_roster"),
]
