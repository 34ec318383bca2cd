"""App configuration for ladders, ratings and leaderboards."""

from importlib import import_module

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LadderConfig(AppConfig):
    """Ladders, ratings and leaderboards."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder"
    verbose_name = _("Ladder")

    def ready(self) -> None:
        """Register the Celery tasks in every process, so a task the services publish by
        name runs in place when Celery is eager (tests) as it does in a worker."""
        import_module(f"{self.name}.tasks")
