"""App configuration of the learning pages: the rules guides and the tutorials."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LearnConfig(AppConfig):
    """Rules guides of the four games and interactive tutorials, with each learner's progress."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "learn"
    verbose_name = _("Learn the games")
