"""The addresses tournament pages had under ``/ladder/`` until issue 42, mounted there by
``config.urls``: each answers 301 to its page under ``/tournaments/`` (same arguments, same query
string), so bookmarks, e-mails already sent and subscribed calendar feeds keep working."""

from django.urls import URLPattern, path
from django.views.generic import RedirectView


def _moved(old: str, name: str) -> URLPattern:
    """``old`` (under ``/ladder/``) answers 301 to the page ``tournaments:<name>`` with the same
    arguments and query string."""
    view = RedirectView.as_view(
        pattern_name=f"tournaments:{name}", permanent=True, query_string=True
    )
    return path(old, view)


urlpatterns = [
    _moved("clubs/<slug:slug>/tournaments/", "club"),
    _moved("clubs/<slug:slug>/tournaments/new/", "create"),
    _moved("clubs/<slug:slug>/tournaments.ics", "club_calendar"),
    _moved("tournaments/<int:pk>/", "detail"),
    _moved("tournaments/<int:pk>/edit/", "edit"),
    _moved("tournaments/<int:pk>/run/", "run"),
    _moved("tournaments/<int:pk>/standings/", "standings"),
    _moved("tournaments/<int:pk>/standings.csv", "standings_csv"),
    _moved("tournaments/<int:pk>/results.csv", "results_csv"),
    _moved("tournaments/<int:pk>/print/", "print"),
    _moved("tournaments/<int:pk>/bracket/", "bracket"),
    _moved("tournaments/<int:pk>/rounds/<int:number>/", "round"),
    _moved("tournaments/<int:pk>/entries/<int:entry_id>/", "entry"),
    _moved("tournaments/<int:pk>/do/<slug:action>/", "action"),
]
