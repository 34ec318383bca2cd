"""App configuration for officials."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OfficialsConfig(AppConfig):
    """Referees, appeals committees, appeals and announcements of tournaments and seasons."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "officials"
    verbose_name = _("Officials")

    def ready(self) -> None:
        """Tell live play that an event's appointed referees and chief referee referee its
        tables, and show a player the way to an appeal on a table's page (matches sit below
        this app and cannot ask it: they offer the hooks)."""
        # imported here, as Django asks: the permissions read every app's models
        from matches.hooks import register_referee_check, register_table_panel
        from officials.hooks import appeal_panel
        from officials.permissions import can_referee_table

        register_referee_check(can_referee_table)
        register_table_panel(appeal_panel)
