"""The records app: a player's statistics in the game's own terms, and the clubs' honours."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RecordsConfig(AppConfig):
    """Registers with live play's hook: a finished match queues its reading into facts."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "records"
    verbose_name = _("Records")

    def ready(self) -> None:
        """Listen for finished live matches (:func:`matches.hooks.register_match_finished`);
        add the honours a match's players hold to its result card (reviews, below)."""
        from matches.hooks import register_match_finished
        from records.honours import match_honour_lines
        from records.services import queue_match
        from reviews.card import register_card_lines

        register_match_finished(queue_match)
        register_card_lines(match_honour_lines)
