"""Web routes of accounts and clubs."""

from django.contrib.auth import views as auth_views
from django.urls import include, path

from clubs import textsize, views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/profile/", views.profile, name="profile"),
    path("text-size/", textsize.set_text_size_view, name="text_size"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("accounts/password_reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("clubs/", views.club_list, name="club_list"),
    path("clubs/new/", views.club_create, name="club_create"),
    path("clubs/<slug:slug>/", views.club_detail, name="club_detail"),
    path("clubs/<slug:slug>/edit/", views.club_edit, name="club_edit"),
    path("clubs/<slug:slug>/manage/", views.club_manage, name="club_manage"),
    path("clubs/<slug:slug>/join/", views.club_join, name="club_join"),
    path("clubs/<slug:slug>/leave/", views.club_leave, name="club_leave"),
    path(
        "clubs/<slug:slug>/requests/<int:request_id>/",
        views.request_answer,
        name="club_request_answer",
    ),
    path(
        "clubs/<slug:slug>/members/<int:membership_id>/",
        views.member_action,
        name="club_member_action",
    ),
    path("clubs/<slug:slug>/invitations/", views.invitation_create, name="club_invitation_create"),
    path(
        "clubs/<slug:slug>/invitations/<int:invitation_id>/revoke/",
        views.invitation_revoke,
        name="club_invitation_revoke",
    ),
    path("invite/<str:token>/", views.invitation, name="invitation"),
]
