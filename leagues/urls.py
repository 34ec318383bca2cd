"""League pages, served under ``/leagues/`` (names ``leagues:...``)."""

from django.urls import path

from leagues import views

app_name = "leagues"

urlpatterns = [
    path("", views.league_list, name="list"),
    path("mine/", views.my_fixtures, name="mine"),
    path("clubs/<slug:slug>/new/", views.league_create, name="league_create"),
    path("<int:pk>/", views.league_detail, name="league"),
    path("<int:pk>/seasons/new/", views.season_create, name="season_create"),
    path("seasons/<int:pk>/", views.season_detail, name="season"),
    path("seasons/<int:pk>/do/<slug:action>/", views.season_action, name="season_action"),
    path("seasons/<int:pk>/clubs/<slug:slug>/enter/", views.team_create, name="team_create"),
    path("seasons/<int:pk>/rounds/<int:number>/", views.round_detail, name="round"),
    path("seasons/<int:pk>/standings.csv", views.standings_csv, name="standings_csv"),
    path("seasons/<int:pk>/results.csv", views.results_csv, name="results_csv"),
    path("fixtures/<int:pk>/", views.fixture_detail, name="fixture"),
    path("fixtures/<int:pk>/do/<slug:action>/", views.fixture_action, name="fixture_action"),
    path("entries/<int:pk>/", views.entry_detail, name="entry"),
    path("entries/<int:pk>/do/<slug:action>/", views.entry_action, name="entry_action"),
    path("entries/<int:pk>/roster/", views.roster_edit, name="roster"),
    path("entries/<int:pk>/calendar.ics", views.entry_calendar, name="entry_calendar"),
    path("players/<int:user_id>/<str:token>.ics", views.player_calendar, name="player_calendar"),
]
