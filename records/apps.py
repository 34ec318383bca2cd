"""The records app: a player's statistics in the game's own terms, and the clubs' honours."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RecordsConfig(AppConfig):
    """Registers with live play's hook: a finished match queues its reading into facts."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "records"
    verbose_name = _("Records")

    def ready(self) -> None:
        """Listen for finished live matches (:func:`matches.hooks.register_match_finished`)
        and for saved tournament games and league fixtures (a corrected result, Django's
        ``post_save``); add the honours a match's players hold to its result card
        (reviews, below)."""
        from django.db.models.signals import post_save

        from leagues.models import Fixture
        from matches.hooks import register_match_finished
        from records.honours import match_honour_lines
        from records.services import fixture_saved, game_saved, queue_match
        from reviews.card import register_card_lines
        from tournaments.models import Game

        register_match_finished(queue_match)
        # corrections: the events' own saves, so no lower layer calls up to the statistics
        post_save.connect(game_saved, sender=Game, dispatch_uid="records.game_saved")
        post_save.connect(fixture_saved, sender=Fixture, dispatch_uid="records.fixture_saved")
        register_card_lines(match_honour_lines)
