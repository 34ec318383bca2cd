"""API routes of a user's notifications and e-mail preferences (under ``/api/v1/``)."""

from django.urls import path

from outbox import api

urlpatterns = [
    path("me/notifications/", api.NotificationList.as_view(), name="api-me-notifications"),
    path(
        "me/email-preferences/",
        api.EmailPreferencesView.as_view(),
        name="api-me-email-preferences",
    ),
]
