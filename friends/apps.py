"""App configuration of friends' tables (好友房)."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FriendsConfig(AppConfig):
    """Friends' tables: a private table outside any club, joined by a link, a QR code or a
    6-digit code. Registers its answers to live play's questions (who may sit at and see a
    friends' table, what the table page shows) with :mod:`matches.hooks`."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "friends"
    verbose_name = _("Friends' tables")

    def ready(self) -> None:
        """Answer live play's questions about friends' tables (:mod:`friends.services`)."""
        from clubs.page_parts import register_page_part
        from friends import again, hooks

        hooks.register()
        again.register()  # 再来一局 (issue 43)
        register_page_part("clubs.home.sections", "friends/_home_section.html")
