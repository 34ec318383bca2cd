"""The leagues app."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeaguesConfig(AppConfig):
    """Leagues, seasons, divisions, teams, fixtures and line-ups."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "leagues"
    verbose_name = _("Leagues")

    def ready(self) -> None:
        """Give the home page each player's next fixture and partner invitations (the home
        page is the clubs app's, below this one), and tell live play who has a stake in a
        fixture's tables (its teams' players may not referee them)."""
        # imported here, as Django asks: the selectors need every app's models
        from clubs.hooks import register_my_games
        from leagues import bridge
        from leagues.selectors import home_items
        from leagues.services.play import has_stake_in_table

        register_my_games(home_items)
        bridge.register_stake_check(has_stake_in_table)
