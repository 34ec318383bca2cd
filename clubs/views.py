"""Web pages of accounts and clubs: thin views that call ``clubs.services``.

A refused action (``ClubError``) shows its translated message and changes nothing; pages that
only admins may see answer 403 to others, exactly as the API does.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from clubs import forms, guests, hooks, permissions, selectors, services
from clubs.client_ip import client_ip
from clubs.models import Club, Invitation, JoinPolicy, Membership, Role, User


def set_language(request: HttpRequest) -> HttpResponse:
    """Switch the interface language; a signed-in user's profile remembers the choice."""
    response = django_set_language(request)
    language = request.POST.get("language")
    if request.method == "POST" and request.user.is_authenticated and language:
        try:
            services.update_profile(request.user, language=language)
        except services.ClubError:
            pass
    return response


#: The home page's practice section, offered by live play (included when it exists, so
#: clubs never names an app above it).
HOME_PRACTICE = ("matches/_home_practice.html",)


def home(request: HttpRequest) -> HttpResponse:
    """The start page: the signed-in user's games now and next (from :mod:`clubs.hooks`), their
    clubs, and clubs to discover. Someone with no club — a visitor, a guest, a new account —
    is led first to practice (live play's section), then to joining a club, then to creating
    one."""
    signed_in = request.user.is_authenticated
    my_clubs = list(selectors.clubs_of_user(request.user)) if signed_in else []
    mine = {club.pk for club in my_clubs}
    discover = [club for club in selectors.search_clubs()[:30] if club.pk not in mine][:12]
    context = {
        "my_clubs": my_clubs,
        "discover": discover,
        "my_games": hooks.my_games(request.user) if signed_in else [],
        "practice_section": next(iter(club_page_sections(HOME_PRACTICE)), None),
        "is_guest": guests.is_guest(request.user),
    }
    return render(request, "clubs/home.html", context)


# --- Accounts --------------------------------------------------------------------------------


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset request page, with at most a few requests per address and per client.

    Beyond the limits the form shows a translated error and no email is sent, so the page
    cannot be used to flood someone's mailbox (or the SMTP server).
    """

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        """Send the reset email unless this address or this client asked too often."""
        if not services.allow_password_reset_request(
            form.cleaned_data["email"], client_ip(self.request)
        ):
            form.add_error(None, _("Too many password reset requests. Wait an hour and try again."))
            return self.form_invalid(form)
        return super().form_valid(form)


def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and sign in; a guest signs up in place (:func:`clubs.guests.convert_guest`:
    the same account, its games and settings kept)."""
    guest = guests.is_guest(request.user)
    if request.user.is_authenticated and not guest:
        return redirect("home")
    language = request.user.language if guest else request.LANGUAGE_CODE
    form = forms.SignUpForm(request.POST or None, initial={"language": language})
    if request.method == "POST" and form.is_valid():
        account = {
            "username": form.cleaned_data["username"],
            "password": form.cleaned_data["password1"],
            "email": form.cleaned_data["email"],
            "display_name": form.cleaned_data["display_name"],
            "language": form.cleaned_data["language"],
        }
        try:
            if guest:
                user = guests.convert_guest(request.user, **account)
            else:
                user = services.sign_up(**account)
        except services.ClubError as error:
            form.add_error(None, error.message)
        else:
            # a guest's session ended with its new password: signed in again, same account
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Welcome, %(name)s!") % {"name": user.name})
            if guest:
                messages.info(request, _("Your games as a guest are kept in your account."))
            next_url = request.GET.get("next", "")
            if url_has_allowed_host_and_scheme(next_url, {request.get_host()}):
                return HttpResponseRedirect(next_url)
            return redirect("home")
    return render(request, "registration/signup.html", {"form": form, "guest": guest})


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """Edit the profile and manage API tokens (a guest is sent to sign up first)."""
    if guests.is_guest(request.user):
        return redirect("signup")
    form = forms.ProfileForm(instance=request.user)
    token_form = forms.ApiTokenForm()
    new_key = None
    if request.method == "POST" and request.POST.get("action") == "profile":
        form = forms.ProfileForm(request.POST, instance=User.objects.get(pk=request.user.pk))
        if form.is_valid():
            try:
                services.update_profile(request.user, **form.cleaned_data)
            except services.ClubError as error:
                form.add_error(None, error.message)
            else:
                messages.success(request, _("Your profile is saved."))
                response = redirect("profile")
                response.set_cookie(
                    settings.LANGUAGE_COOKIE_NAME,
                    request.user.language,
                    max_age=settings.LANGUAGE_COOKIE_AGE,
                    path=settings.LANGUAGE_COOKIE_PATH,
                    secure=settings.LANGUAGE_COOKIE_SECURE,
                    httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                    samesite=settings.LANGUAGE_COOKIE_SAMESITE,
                )
                return response
    elif request.method == "POST" and request.POST.get("action") == "create_token":
        token_form = forms.ApiTokenForm(request.POST)
        if token_form.is_valid():
            try:
                _token, new_key = services.create_api_token(
                    request.user, token_form.cleaned_data["name"]
                )
            except services.ClubError as error:
                token_form.add_error(None, error.message)
            else:
                token_form = forms.ApiTokenForm()
    elif request.method == "POST" and request.POST.get("action") == "revoke_token":
        try:
            services.revoke_api_token(request.user, int(request.POST.get("token_id", "0")))
        except (services.ClubError, ValueError):
            messages.error(request, _("No such token."))
        else:
            messages.success(request, _("The token is revoked."))
        return redirect("profile")
    return render(
        request,
        "clubs/profile.html",
        {
            "form": form,
            "token_form": token_form,
            "tokens": selectors.tokens_of(request.user),
            "new_key": new_key,
            "panels": hooks.profile_panels(request.user),
        },
    )


# --- Clubs -----------------------------------------------------------------------------------


def club_list(request: HttpRequest) -> HttpResponse:
    """Search clubs by name, city or description."""
    query = request.GET.get("q", "").strip()[:80]
    page = Paginator(selectors.search_clubs(query), 20).get_page(request.GET.get("page"))
    return render(request, "clubs/club_list.html", {"page": page, "query": query})


@login_required
def club_create(request: HttpRequest) -> HttpResponse:
    """Create a club; the creator becomes its owner."""
    form = forms.ClubForm(request.POST or None, initial={"join_policy": JoinPolicy.REQUEST})
    if request.method == "POST" and form.is_valid():
        try:
            club = services.create_club(request.user, **form.cleaned_data)
        except services.ClubError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("Your club is created. You are its owner."))
            return redirect("club_detail", slug=club.slug)
    return render(request, "clubs/club_form.html", {"form": form, "club": None})


#: Sections other apps add to the club page: a template at one of these paths is included
#: (with ``club``, ``membership`` and ``is_admin`` in its context) when it exists.
CLUB_PAGE_SECTIONS = (
    "matches/_club_section.html",
    "ladder/_club_section.html",
    "tournaments/_club_section.html",
    "leagues/_club_section.html",
    "records/_club_section.html",
    "officials/_club_section.html",
)
#: Sections other apps add to the club's manage page (same contract as the club page's).
CLUB_MANAGE_SECTIONS = ("leagues/_club_manage_section.html",)
#: How a member's name is drawn when an app above offers it (with ``user`` and ``ladder``, the
#: club's first ladder, in its context): the ladders link it to the member's player page.
MEMBER_NAME = "ladder/_member_name.html"


def club_page_sections(names: tuple[str, ...] = CLUB_PAGE_SECTIONS) -> list[str]:
    """Those of the club-page templates ``names`` that exist."""
    found = []
    for name in names:
        try:
            get_template(name)
        except TemplateDoesNotExist:
            continue
        found.append(name)
    return found


def club_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The public page of a club: details, other apps' sections, members, join/leave."""
    club = get_object_or_404(selectors.clubs_with_counts(), slug=slug)
    membership = selectors.membership_of(request.user, club)
    # A members-only club shows others only its name, description and how to join.
    visible = permissions.can_see_club(request.user, club)
    return render(
        request,
        "clubs/club_detail.html",
        {
            "club": club,
            "membership": membership,
            "visible": visible,
            "members": selectors.members_of(club) if visible else [],
            "pending_request": selectors.pending_request_of(request.user, club),
            "is_admin": membership is not None and membership.is_admin,
            "request_form": forms.JoinRequestForm(),
            "sections": club_page_sections() if visible else [],
            "member_name": next(iter(club_page_sections((MEMBER_NAME,))), None),
        },
    )


@login_required
def club_edit(request: HttpRequest, slug: str) -> HttpResponse:
    """Edit a club (owner and admins)."""
    club = get_object_or_404(Club, slug=slug)
    if not permissions.can_edit_club(request.user, club):
        raise PermissionDenied
    form = forms.ClubForm(request.POST or None, instance=Club.objects.get(pk=club.pk))
    if request.method == "POST" and form.is_valid():
        try:
            services.update_club(request.user, club, **form.cleaned_data)
        except services.ClubError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("The club is saved."))
            return redirect("club_detail", slug=club.slug)
    return render(request, "clubs/club_form.html", {"form": form, "club": club})


@login_required
def club_manage(request: HttpRequest, slug: str) -> HttpResponse:
    """Members, join requests and invitation links of a club (owner and admins)."""
    club = get_object_or_404(selectors.clubs_with_counts(), slug=slug)
    if not permissions.is_club_admin(request.user, club):
        raise PermissionDenied
    members = list(selectors.members_of(club))
    for member in members:
        member.can_remove = permissions.can_remove_member(request.user, member)
        member.can_change_role = permissions.can_change_role(request.user, member, Role.ADMIN)
    invitations = list(selectors.invitations_of(club)[:20])
    for invitation in invitations:
        invitation.url = request.build_absolute_uri(
            reverse("invitation", kwargs={"token": invitation.token})
        )
    return render(
        request,
        "clubs/club_manage.html",
        {
            "club": club,
            "members": members,
            "requests": selectors.pending_requests(club),
            "invitations": invitations,
            "invitation_form": forms.InvitationForm(),
            "is_owner": permissions.is_owner(request.user, club),
            "sections": club_page_sections(CLUB_MANAGE_SECTIONS),
        },
    )


def _run(request: HttpRequest, action: object, success: str, *args: object) -> bool:
    """Call a service; show its refusal as an error message. Return True on success."""
    try:
        action(request.user, *args)
    except services.ClubError as error:
        messages.error(request, error.message)
        return False
    messages.success(request, success)
    return True


@login_required
@require_POST
def club_join(request: HttpRequest, slug: str) -> HttpResponse:
    """Join an open club, or ask to join a club that takes requests."""
    club = get_object_or_404(Club, slug=slug)
    form = forms.JoinRequestForm(request.POST)
    message = form.cleaned_data["message"] if form.is_valid() else ""
    try:
        result = services.join_club(request.user, club, message=message)
    except services.ClubError as error:
        messages.error(request, error.message)
    else:
        if isinstance(result, Membership):
            messages.success(request, _("Welcome to %(club)s!") % {"club": club.name})
        else:
            messages.success(request, _("Your request is sent. The club's admins will answer."))
    return redirect("club_detail", slug=club.slug)


@login_required
@require_POST
def club_leave(request: HttpRequest, slug: str) -> HttpResponse:
    """Leave a club."""
    club = get_object_or_404(Club, slug=slug)
    _run(request, services.leave_club, _("You have left the club."), club)
    return redirect("club_detail", slug=club.slug)


@login_required
@require_POST
def request_answer(request: HttpRequest, slug: str, request_id: int) -> HttpResponse:
    """Accept, decline or cancel a join request."""
    club = get_object_or_404(Club, slug=slug)
    answer = request.POST.get("answer")
    if answer == "accept":
        _run(request, services.accept_join_request, _("The request is accepted."), request_id)
    elif answer == "decline":
        _run(request, services.decline_join_request, _("The request is declined."), request_id)
    elif answer == "cancel":
        _run(request, services.cancel_join_request, _("Your request is withdrawn."), request_id)
        return redirect("club_detail", slug=club.slug)
    else:
        messages.error(request, _("Unknown action."))
    return redirect("club_manage", slug=club.slug)


@login_required
@require_POST
def member_action(request: HttpRequest, slug: str, membership_id: int) -> HttpResponse:
    """Remove a member, change a role, or transfer ownership to a member."""
    club = get_object_or_404(Club, slug=slug)
    membership = get_object_or_404(Membership, pk=membership_id, club=club)
    action = request.POST.get("action")
    if action == "remove":
        _run(request, services.remove_member, _("The member is removed."), membership)
    elif action in ("make_admin", "make_member"):
        role = Role.ADMIN if action == "make_admin" else Role.MEMBER
        _run(request, services.change_role, _("The role is changed."), membership, role)
    elif action == "transfer":
        if _run(
            request,
            services.transfer_ownership,
            _("%(name)s now owns the club.") % {"name": membership.user.name},
            club,
            membership.user,
        ):
            return redirect("club_detail", slug=club.slug)
    else:
        messages.error(request, _("Unknown action."))
    return redirect("club_manage", slug=club.slug)


@login_required
@require_POST
def invitation_create(request: HttpRequest, slug: str) -> HttpResponse:
    """Create an invitation link."""
    club = get_object_or_404(Club, slug=slug)
    form = forms.InvitationForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect("club_manage", slug=club.slug)
    _run(
        request,
        lambda user, c: services.create_invitation(user, c, **form.cleaned_data),
        _("A new invitation link is ready: copy it, share it or show its QR code."),
        club,
    )
    return redirect("club_manage", slug=club.slug)


@login_required
@require_POST
def invitation_revoke(request: HttpRequest, slug: str, invitation_id: int) -> HttpResponse:
    """Revoke an invitation link."""
    invitation = get_object_or_404(Invitation, pk=invitation_id, club__slug=slug)
    _run(request, services.revoke_invitation, _("The link is revoked."), invitation)
    return redirect("club_manage", slug=slug)


def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """The page behind an invitation link: shows the club and joins it on POST."""
    found = selectors.invitation_by_token(token)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('login')}?next={request.path}")
        try:
            services.accept_invitation(request.user, token)
        except services.ClubError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, _("Welcome to %(club)s!") % {"club": found.club.name})
            return redirect("club_detail", slug=found.club.slug)
    membership = selectors.membership_of(request.user, found.club) if found else None
    return render(
        request,
        "clubs/invitation.html",
        {"invitation": found, "membership": membership},
        status=200 if found else 404,
    )
