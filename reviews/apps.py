"""App configuration for the reviews of finished matches and the shared result cards."""

from importlib import import_module

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReviewsConfig(AppConfig):
    """The strong bot's review of every finished match, and result cards to share."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "reviews"
    verbose_name = _("Reviews")

    def ready(self) -> None:
        """Register the Celery tasks (so a task published by name runs in place when Celery is
        eager), the review's section of the replay page and the review's start at a match's
        end (matches' hooks)."""
        import_module(f"{self.name}.tasks")
        from matches.hooks import register_match_finished, register_replay_panel
        from reviews.panels import replay_panel
        from reviews.services import queue_review

        register_replay_panel(replay_panel)
        register_match_finished(queue_review)
