"""App configuration for ladders, ratings, leaderboards and tournaments."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LadderConfig(AppConfig):
    """Ladders, ratings, leaderboards, tournaments and pairings."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder"
    verbose_name = _("Ladder")

    def ready(self) -> None:
        """Tell score sheets which of them record a tournament game already rated from its
        organiser's result (so a game counts once)."""
        # imported here, as Django asks: the tournament services need every app's models
        from ladder.tournament_services import organiser_rated_game
        from sheets.hooks import register_rated_elsewhere

        register_rated_elsewhere(lambda sheet: organiser_rated_game(sheet) is not None)
