"""Demo data for ``manage.py demo``: a few weeks of rated Bao 2 and Shuangkou results.

Idempotent: results are recorded under fixed source ids (``demo-…``), so running the demo again
adds nothing; they are applied synchronously so the ladders show at once.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta
from typing import TextIO

from django.utils import timezone

from games.variants import Variant
from ladder import services
from ladder.apply import apply_result
from ladder.models import RatedResult

DEMO_RESULTS = 60


def load_demo(club: object, users: Sequence[object], stdout: TextIO) -> None:
    """Record and apply seeded demo results among ``users`` in ``club``'s ladders."""
    if len(users) < 4:
        return
    rng = random.Random(2026)
    start = timezone.now() - timedelta(days=DEMO_RESULTS // 2 + 1)
    for i in range(DEMO_RESULTS):
        ended_at = start + timedelta(hours=12 * i)
        if i % 4 == 3:
            a, b = rng.sample(list(users), 2)
            variant, sides = Variant.SHUANGKOU2.value, [[a.pk], [b.pk]]
            scores = [rng.randint(0, 120), rng.randint(0, 120)]
        else:
            four = rng.sample(list(users), 4)
            variant, sides = (
                Variant.BAO2.value,
                [[four[0].pk, four[2].pk], [four[1].pk, four[3].pk]],
            )
            loser = rng.randint(0, 20)
            scores = [23, loser] if rng.random() < 0.5 else [loser, 23]
        result = services.record_result(
            source="sheet",
            source_id=f"demo-{club.pk}-{i}",
            variant=variant,
            sides=sides,
            scores=scores,
            ended_at=ended_at,
            club_id=club.pk,
            enqueue=False,
        )
        apply_result(result)
        # demo results are not news: nobody is emailed, and beat's sweep leaves them alone
        RatedResult.objects.filter(pk=result.pk, emails_sent_at__isnull=True).update(
            emails_sent_at=timezone.now()
        )
    stdout.write(f"Ladder: {DEMO_RESULTS} rated demo results (/ladder/)")
