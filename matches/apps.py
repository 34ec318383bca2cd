"""App configuration for live play: tables, seats, matches and their event logs."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    """Live play: tables, seats, matches, event logs, replays."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "matches"
    verbose_name = _("Matches")

    def ready(self) -> None:
        """A removed guest's practice tables go with it (:mod:`clubs.guests`); a changed
        standing in a club, a deactivated or deleted account close the table sockets that no
        longer pass the access rule (:mod:`matches.rechecks`)."""
        from django.db.models.signals import post_delete, post_save

        from clubs import guests, hooks
        from clubs.models import User
        from matches import rechecks
        from matches.services import practice

        guests.register_guests_removed(practice.forget_guests_tables)
        hooks.register_standing_changed(rechecks.standing_changed)
        post_save.connect(rechecks.user_saved, sender=User, dispatch_uid="matches.rechecks.saved")
        post_delete.connect(
            rechecks.user_deleted, sender=User, dispatch_uid="matches.rechecks.deleted"
        )
