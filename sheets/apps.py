"""App configuration for score sheets (保2记分器): matches played with real cards, scored on a
phone."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SheetsConfig(AppConfig):
    """Score sheets: their entry logs, confirmations and disputes."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "sheets"
    verbose_name = _("Score sheets")

    def ready(self) -> None:
        """Offer the club's score sheets among a member's actions on the club page
        (:mod:`clubs.page_parts`)."""
        from clubs.page_parts import register_page_part

        register_page_part("clubs.club.member_actions", "sheets/_club_action.html")
