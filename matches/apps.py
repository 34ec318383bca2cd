"""App configuration for live play: tables, seats, matches and their event logs."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    """Live play: tables, seats, matches, event logs, replays."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "matches"
    verbose_name = _("Matches")
