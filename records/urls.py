"""Pages of the statistics, mounted under ``/records/`` by ``config.urls``."""

from django.urls import path

from records import views

app_name = "records"

urlpatterns = [
    path("players/<int:user_id>/", views.player, name="player"),
]
