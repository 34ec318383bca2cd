"""App configuration for tournaments."""

from importlib import import_module

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    """A club's tournaments: set-up, entries, pairings, rounds, results and standings."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        """Register the Celery tasks in every process (so a task the services publish by name
        runs in place when Celery is eager, as in a worker), and tell score sheets which of
        them record a tournament game already rated from its organiser's result (so a game
        counts once: sheets sit below tournaments and cannot ask them), tell live play that a
        tournament's organisers referee its tables and who has a stake in one (its players,
        partners, teammates), and give the home page each player's games (tables, rounds,
        sheets to confirm)."""
        import_module(f"{self.name}.tasks")
        # imported here, as Django asks: the tournament services need every app's models
        from clubs.hooks import register_my_games
        from matches.hooks import register_referee_check, register_stake_check
        from sheets.hooks import register_rated_elsewhere
        from tournaments.home import my_games
        from tournaments.permissions import can_referee_table, has_stake_in_table
        from tournaments.services.rating import organiser_rated_game

        register_rated_elsewhere(lambda sheet: organiser_rated_game(sheet) is not None)
        register_referee_check(can_referee_table)
        register_stake_check(has_stake_in_table)
        register_my_games(my_games)
