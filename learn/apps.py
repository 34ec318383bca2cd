"""App configuration of the learning pages: the rules guides and the tutorials."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LearnConfig(AppConfig):
    """Rules guides of the four games and interactive tutorials, with each learner's progress."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "learn"
    verbose_name = _("Learn the games")

    def ready(self) -> None:
        """Link the guides from the pages of the apps below (:mod:`clubs.page_parts`): the home
        page, a club's tables, and the table page's rule links."""
        from clubs.page_parts import register_page_part, register_page_url

        register_page_part("clubs.home.links", "learn/_home_link.html")
        register_page_part("matches.lobby.links", "learn/_lobby_link.html")
        register_page_url("matches.table.rules", "learn:index")
