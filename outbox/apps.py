"""App configuration of the outbox."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OutboxConfig(AppConfig):
    """The outbox app: emails written with their cause, sent at least once, marked once."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "outbox"
    verbose_name = _("Outgoing email")
