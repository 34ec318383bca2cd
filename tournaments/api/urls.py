"""Routes of the tournament API, included under ``/api/v1/`` by ``config.urls``."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from tournaments.api import teams, views

router = SimpleRouter()
router.register("tournaments", views.TournamentViewSet, basename="tournament")
router.register("tournament-games", views.TournamentGameViewSet, basename="tournament-game")
router.register("tournament-notices", views.TournamentNoticeViewSet, basename="tournament-notice")

urlpatterns = router.urls + [
    path("tournaments/<int:pk>/teams/", teams.TeamsView.as_view(), name="tournament-teams"),
    path(
        "tournaments/<int:pk>/teams/<int:team>/roster/",
        teams.RosterView.as_view(),
        name="tournament-team-roster",
    ),
    path(
        "tournaments/<int:pk>/teams/<int:team>/withdraw/",
        teams.WithdrawTeamView.as_view(),
        name="tournament-team-withdraw",
    ),
    path("tournaments/<int:pk>/invite/", teams.InviteView.as_view(), name="tournament-invite"),
    path(
        "tournaments/<int:pk>/uninvite/", teams.UninviteView.as_view(), name="tournament-uninvite"
    ),
]
