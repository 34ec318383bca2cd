"""The names of the counters (:mod:`engine.facts`) and of the figures made from them, in the
reader's language. One term per concept (docs/glossary.md)."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

#: Each counter's name as a page and the API show it.
FACT_LABELS: dict[str, Promise] = {
    "matches": _("Matches"),
    "won": _("Won"),
    "drawn": _("Drawn"),
    "lost": _("Lost"),
    "deals": _("Deals"),
    "deals_won": _("Deals won"),
    "levels_up": _("Levels gained"),
    "levels_down": _("Levels lost"),
    "points": _("Points"),
    "place_1": _("1st place (上游)"),
    "place_2": _("2nd place (二游)"),
    "place_3": _("3rd place (三游)"),
    "place_4": _("Last place (下游)"),
    "decisions": _("Decisions"),
    "timed_decisions": _("Timed decisions"),
    "think_ms": _("Thinking time (ms)"),
    "bao2_made": _("保2 made"),
    "bao2_failed": _("保2 failed"),
    "guan2_done": _("关2 done"),
    "guan2_suffered": _("关2 suffered"),
    "double_up": _("1st and 2nd (双上)"),
    "immune_bombs": _("Immune bombs played"),
    "top_attempts": _("Attempts at the last level"),
    "top_successes": _("Last level passed"),
    "sanctions": _("Sanctions received"),
    "tributes_given": _("Tributes given"),
    "tributes_received": _("Tributes received"),
    "anti_tributes": _("Anti-tributes"),
    "solo_taken": _("Solo taken"),
    "solo_won": _("Solo won"),
    "surrender_taken": _("Surrender taken"),
    "surrender_won": _("Surrender won"),
    "compare_taken": _("Compare taken"),
    "compare_won": _("Compare won"),
    "bombs": _("Bombs played"),
    "bomb_lines": _("Bomb lines"),
}
