"""App configuration of the outbox."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OutboxConfig(AppConfig):
    """The outbox app: emails written with their cause, sent at least once, marked once; the
    notification list and e-mail preferences of each user."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "outbox"
    verbose_name = _("Outgoing email")

    def ready(self) -> None:
        """Answer the clubs hooks: join requests e-mailed to admins, their answers to the
        applicant, the profile's section."""
        from clubs import hooks
        from outbox.club_notices import notify_join_decided, notify_join_request
        from outbox.views import profile_panel

        hooks.register_join_requested(notify_join_request)
        hooks.register_join_decided(notify_join_decided)
        hooks.register_profile_panel(profile_panel)
