"""Routes of a user's notifications and e-mail preferences, included under ``/api/v1/`` by
``config.urls``."""

from django.urls import path

from outbox.api import views

urlpatterns = [
    path("me/notifications/", views.NotificationList.as_view(), name="api-me-notifications"),
    path(
        "me/email-preferences/",
        views.EmailPreferencesView.as_view(),
        name="api-me-email-preferences",
    ),
]
