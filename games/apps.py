from django.apps import AppConfig


class GamesConfig(AppConfig):
    """The games table; it has no models, it is an app so that its strings are translated."""

    name = "games"
    verbose_name = "Games"
