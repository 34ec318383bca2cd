"""Web forms of accounts and clubs. They validate input; ``clubs.services`` changes state."""

import zoneinfo
from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from clubs.models import MAX_INVITATION_USES, Club, JoinPolicy, Language, User, Visibility

COMMON_TIME_ZONES = [
    "Asia/Shanghai",
    "Asia/Hong_Kong",
    "Asia/Taipei",
    "Asia/Singapore",
    "Asia/Kuala_Lumpur",
    "Asia/Tokyo",
    "Australia/Sydney",
    "Europe/London",
    "Europe/Paris",
    "America/New_York",
    "America/Los_Angeles",
    "America/Vancouver",
    "UTC",
]


def time_zone_choices() -> list[tuple[str, str]]:
    """Common zones of Chinese communities first, then every other IANA zone."""
    others = sorted(zoneinfo.available_timezones() - set(COMMON_TIME_ZONES))
    return [(name, name) for name in COMMON_TIME_ZONES + others]


class SignUpForm(UserCreationForm):
    """Create an account: username, email (for password reset), display name, language."""

    email = forms.EmailField(
        label=_("Email"),
        required=True,
        help_text=_("Used only to reset your password."),
    )
    display_name = forms.CharField(
        label=_("Display name"),
        max_length=60,
        required=False,
        help_text=_("The name other players see. You can leave it empty."),
    )
    language = forms.ChoiceField(label=_("Language"), choices=Language.choices)

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ["username", "email", "display_name", "language"]


class ProfileForm(forms.ModelForm):
    """Edit display name, email, language, time zone and text size."""

    time_zone = forms.ChoiceField(label=_("Time zone"), choices=time_zone_choices)
    current_password = forms.CharField(
        label=_("Current password"),
        required=False,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text=_("Needed only to change your email address."),
    )

    class Meta:
        model = User
        fields = ["display_name", "email", "language", "time_zone", "text_size"]
        labels = {
            "display_name": _("Display name"),
            "email": _("Email"),
            "language": _("Language"),
            "text_size": _("Text size"),
        }
        widgets = {"text_size": forms.RadioSelect}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """The text size may be left out (a form of an older page): the user's own is kept."""
        super().__init__(*args, **kwargs)
        self.fields["text_size"].required = False

    def clean_text_size(self) -> str:
        """The size chosen, else the user's present one."""
        return self.cleaned_data.get("text_size") or self.instance.text_size


class ApiTokenForm(forms.Form):
    """Name a new API token."""

    name = forms.CharField(
        label=_("Token name"),
        max_length=60,
        help_text=_("For example the program or phone that will use it."),
    )


class ClubForm(forms.ModelForm):
    """Create or edit a club."""

    join_policy = forms.ChoiceField(
        label=_("Who may join"), choices=JoinPolicy.choices, widget=forms.RadioSelect
    )
    visibility = forms.ChoiceField(
        label=_("Who sees the club's members, tables and results"),
        choices=Visibility.choices,
        widget=forms.RadioSelect,
        required=False,  # absent (an older form, a script): the club keeps its visibility
    )

    class Meta:
        model = Club
        fields = ["name", "city", "description", "join_policy", "visibility", "match_reviews"]
        labels = {
            "name": _("Club name"),
            "city": _("City"),
            "description": _("About the club"),
            "match_reviews": _("The strong bot reviews every finished match"),
        }
        widgets = {"description": forms.Textarea(attrs={"rows": 4})}

    def clean_visibility(self) -> str:
        """The chosen visibility, or the club's own (public for a new club) when none."""
        return self.cleaned_data.get("visibility") or self.instance.visibility


class JoinRequestForm(forms.Form):
    """An optional message to the admins when asking to join."""

    message = forms.CharField(
        label=_("Message to the club (optional)"),
        max_length=500,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class InvitationForm(forms.Form):
    """Options of a new invitation link."""

    expires_in_days = forms.IntegerField(
        label=_("Valid for (days)"), min_value=1, max_value=365, initial=14
    )
    max_uses = forms.IntegerField(
        label=_("Maximum uses (empty: unlimited)"),
        min_value=1,
        max_value=MAX_INVITATION_USES,
        required=False,
    )


def show_refusal(form: forms.Form, error: Any) -> None:
    """Show a service's refusal (a :class:`games.errors.Refused`, with ``fields`` when it
    names them) on ``form``: each problem beside the field it names, all at once, else the
    message above the form."""
    fields = getattr(error, "fields", None) or {}
    if not fields or any(f not in form.fields for f in fields):
        form.add_error(None, error.message)
        return
    for field, problems in fields.items():
        for problem in problems:
            form.add_error(field, problem)
