"""Routes of the ladder API, included under ``/api/v1/`` by ``config.urls``."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from ladder.api import views

router = SimpleRouter()
router.register("ladders", views.LadderViewSet, basename="ladder")

urlpatterns = [
    path(
        "players/<int:user_id>/ratings/",
        views.PlayerRatingsViewSet.as_view({"get": "list"}),
        name="player-ratings",
    ),
    *router.urls,
]
