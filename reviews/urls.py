"""Pages of the reviews app, mounted under ``/reviews/``."""

from django.urls import path

from reviews import views

app_name = "reviews"

urlpatterns = [
    path("share/<int:table_id>/", views.share, name="share"),
    path("card/<int:table_id>/<str:language>.png", views.card, name="card"),
]
