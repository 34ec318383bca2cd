"""Routes of the officials API, included under ``/api/v1/`` by ``config.urls``."""

from rest_framework.routers import SimpleRouter

from officials.api import views

router = SimpleRouter()
router.register(
    "tournament-officials", views.TournamentOfficialsViewSet, basename="tournament-officials"
)
router.register("season-officials", views.SeasonOfficialsViewSet, basename="season-officials")
router.register("appeals", views.AppealViewSet, basename="appeal")

urlpatterns = router.urls
