"""Temporary: the one name the score sheets still import from here, until they ask
tournaments through a hook (then this module goes). Tournaments live in :mod:`tournaments`."""

from tournaments.services.rating import organiser_rated_game

__all__ = ["organiser_rated_game"]
