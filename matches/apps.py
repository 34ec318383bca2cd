"""App configuration for live play: tables, seats, matches and their event logs."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    """Live play: tables, seats, matches, event logs, replays."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "matches"
    verbose_name = _("Matches")

    def ready(self) -> None:
        """A removed guest's practice tables go with it (:mod:`clubs.guests`)."""
        from clubs import guests
        from matches.services import practice

        guests.register_guests_removed(practice.forget_guests_tables)
