"""Score-sheet pages, served under ``/matches/sheets/`` by ``config.urls`` (names
``scoresheet:...``; the API is :mod:`sheets.api.urls`)."""

from django.urls import path

from sheets import views

app_name = "scoresheet"

urlpatterns = [
    path("new/<slug:slug>/", views.sheet_new, name="new"),
    path("club/<slug:slug>/", views.club_sheets, name="club"),
    path("<int:pk>/", views.sheet_page, name="sheet"),
    path("sw.js", views.service_worker, name="service_worker"),
]
