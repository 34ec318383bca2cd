"""Web routes of accounts and clubs."""

from django.urls import path

from clubs import views

urlpatterns = [
    path("", views.home, name="home"),
    path("invite/<str:token>/", views.invitation, name="invitation"),
]
