"""Web routes of notifications, served under ``/notifications/``."""

from django.urls import path

from outbox import views

app_name = "outbox"

urlpatterns = [
    path("", views.notification_list, name="notifications"),
    path("preferences/", views.preferences, name="preferences"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
