"""Routes of the accounts and clubs API under ``/api/v1/``."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from clubs.api import views

router = DefaultRouter()
router.register("clubs", views.ClubViewSet, basename="club")
router.register("memberships", views.MembershipViewSet, basename="membership")
router.register("join-requests", views.JoinRequestViewSet, basename="joinrequest")
router.register("invitations", views.InvitationViewSet, basename="invitation")

urlpatterns = [
    path("me/", views.CurrentUserView.as_view(), name="api-me"),
    path("auth/token/", views.TokenView.as_view(), name="api-token"),
    *router.urls,
]
