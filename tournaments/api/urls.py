"""Routes of the tournament API, included under ``/api/v1/`` by ``config.urls``."""

from rest_framework.routers import SimpleRouter

from tournaments.api import views

router = SimpleRouter()
router.register("tournaments", views.TournamentViewSet, basename="tournament")
router.register("tournament-games", views.TournamentGameViewSet, basename="tournament-game")
router.register("tournament-notices", views.TournamentNoticeViewSet, basename="tournament-notice")

urlpatterns = router.urls
