"""The leagues app."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeaguesConfig(AppConfig):
    """Leagues, seasons, divisions, teams, fixtures and line-ups."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "leagues"
    verbose_name = _("Leagues")
