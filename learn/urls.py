"""Pages of the learning app, served under ``/learn/``."""

from django.urls import path

from learn import views

app_name = "learn"

urlpatterns = [
    path("", views.index, name="index"),
    path("rules/<slug:variant>/", views.guide, name="guide"),
    path("lessons/<slug:course>/", views.course, name="course"),
    path("lessons/<slug:course>/<slug:slug>/", views.lesson_page, name="lesson"),
]
