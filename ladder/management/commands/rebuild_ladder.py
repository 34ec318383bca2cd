"""``manage.py rebuild_ladder`` — recompute ladders from their results, in the order they ended."""

from __future__ import annotations

from argparse import ArgumentParser

from django.core.management.base import BaseCommand, CommandError

from ladder.apply import rebuild_ladder
from ladder.models import Ladder


class Command(BaseCommand):
    """Rebuild one ladder (by id), or every ladder with ``--all``."""

    help = (
        "Rebuild ladder ratings from their rated results; gives the same ratings as live updates."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        """Ladder ids, or ``--all``."""
        parser.add_argument("ladder_ids", nargs="*", type=int)
        parser.add_argument("--all", action="store_true", help="Rebuild every ladder.")

    def handle(self, *args: object, **options: object) -> None:
        """Rebuild the chosen ladders and report how many results each replayed."""
        ids = options["ladder_ids"]
        if options["all"]:
            ladders = list(Ladder.objects.order_by("id"))
        elif ids:
            ladders = list(Ladder.objects.filter(pk__in=ids).order_by("id"))
            missing = set(ids) - {ladder.pk for ladder in ladders}
            if missing:
                raise CommandError(f"No ladder with id {', '.join(map(str, sorted(missing)))}")
        else:
            raise CommandError("Give ladder ids or --all.")
        for ladder in ladders:
            count = rebuild_ladder(ladder)
            self.stdout.write(f"{ladder.pk} {ladder}: {count} results replayed")
