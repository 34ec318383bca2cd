"""Routes of the reviews API, included under ``/api/v1/`` by ``config.urls``."""

from django.urls import path

from reviews.api import views

urlpatterns = [
    path("tables/<int:table_id>/review/", views.MatchReviewView.as_view(), name="table-review"),
]
