"""App configuration for score sheets (保2记分器): matches played with real cards, scored on a
phone."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SheetsConfig(AppConfig):
    """Score sheets: their entry logs, confirmations and disputes."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "sheets"
    verbose_name = _("Score sheets")
