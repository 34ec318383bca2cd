"""The honours a match's players hold (records, through reviews.card.register_card_lines) on
its result card, in the viewer's language: only the match's club, the month and season it
ended in, and the players who sat at it."""

import io

from django.utils.translation import override
from PIL import Image

from clubs import services as club_services
from clubs.models import User
from records import periods
from records.honours import explained
from records.models import Honour
from reviews import card


def test_the_card_shows_the_honours_its_players_hold(finished, club, people):
    month, season = periods.keys_for(finished.finished_at)[1:]
    plain = card.render_card(finished, "zh-hans")
    Honour.objects.create(club=club, period=month, code="bao2_made", user=people[0], value=3)
    Honour.objects.create(
        club=club, period=season, code="best_partnership", user=people[1], partner=people[3]
    )
    # not on this card: another period, another club, someone not at the table
    Honour.objects.create(club=club, period="m2001-01", code="most_matches", user=people[2])
    other = club_services.create_club(people[0], name="别的俱乐部")
    Honour.objects.create(club=other, period=month, code="most_matches", user=people[2])
    outsider = User.objects.create_user("rvx", "rvx@example.com", "pw")
    Honour.objects.create(club=club, period=month, code="double_up", user=outsider)
    for language in ("zh-hans", "en"):
        with override(language):
            lines = card.result_summary(finished)["honours"]
            king = f"{explained('bao2_made').title} · {periods.label(month)}"
            pair = f"{explained('best_partnership').title} · {periods.label(season)}"
        assert len(lines) == 2, lines
        assert lines[0].startswith(king) and lines[0].endswith("玩家0")
        assert lines[1].startswith(pair) and lines[1].endswith("玩家1 · 玩家3")
    assert lines[0] == f"{king}: 玩家0"  # English
    png = card.render_card(finished, "zh-hans")
    assert png != plain and Image.open(io.BytesIO(png)).size == (1200, 630)
