"""Web routes of friends' tables (served under ``/friends/``)."""

from django.urls import path

from friends import views

app_name = "friends"

urlpatterns = [
    path("", views.home, name="home"),
    path("open/", views.open_room, name="open"),
    path("join/", views.join, name="join"),
    path("t/<str:token>/", views.invitation, name="invitation"),
    path("tables/<int:table_id>/remove/", views.remove, name="remove"),
]
