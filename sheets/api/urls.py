"""Routes of the score-sheet API, included under ``/api/v1/`` by ``config.urls``."""

from rest_framework.routers import SimpleRouter

from sheets.api import views

router = SimpleRouter()
router.register("sheets", views.ScoreSheetViewSet, basename="scoresheet")

urlpatterns = router.urls
