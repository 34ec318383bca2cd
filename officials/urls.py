"""Officials pages under ``/officials/`` (names ``officials:...``)."""

from django.urls import path

from officials import views

app_name = "officials"

urlpatterns = [
    path("clubs/<slug:slug>/", views.club_events, name="club"),
    path("tournaments/<int:pk>/", views.tournament_page, name="tournament"),
    path("seasons/<int:pk>/", views.season_page, name="season"),
    path("tournaments/<int:pk>/appeal/", views.appeal_new, name="appeal_new"),
    path("seasons/<int:pk>/appeal/", views.season_appeal, name="season_appeal"),
    path("tournaments/<int:pk>/<slug:action>/", views.tournament_action, name="tournament_action"),
    path("seasons/<int:pk>/<slug:action>/", views.season_action, name="season_action"),
    path("appeals/<int:pk>/", views.appeal_page, name="appeal"),
]
