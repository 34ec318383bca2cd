"""A league season's matches end as a tournament's do (issue 45, 第十四条): the season form
offers the four ending modes with the one check (:func:`games.endings.ending_problems`), the
settings a mode does not use are cleared, an online Guandan season's tables get the deal limit,
and the season page says how matches end."""

from datetime import timedelta

from django.test import Client
from django.utils import timezone

from leagues.models import Season
from leagues.services.setup import match_options


def _client(user):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(user)
    return client


def data(**extra):
    values = {
        "name": "2031 春季",
        "variant": "guandan",
        "entry_kind": "team",
        "format": "round_robin",
        "swiss_rounds": "5",
        "online": "on",
        "time_limit_minutes": "",
        "deals": "",
        "team_tables": "2",
        "points_win": "2",
        "points_draw": "1",
        "points_loss": "0",
        "tiebreak1": "level_diff",
        "tiebreak2": "head_to_head",
        "tiebreak3": "buchholz",
        "starts_on": (timezone.localdate() + timedelta(days=3)).isoformat(),
        "window_days": "7",
    }
    values.update(extra)
    return values


def test_the_season_form_says_the_ending_problems_at_once(world):
    admin = _client(world.host_admin)
    url = f"/leagues/{world.league.pk}/seasons/new/"
    page = admin.get(url).content.decode()
    assert 'name="ending"' in page and "计时计副制" in page
    page = admin.post(url, data(ending="time_deals", time_limit_minutes="0", deals="0")).content
    page = page.decode()
    assert "请填写每场副数" in page and "请填写对局限时" in page
    assert not Season.objects.filter(name="2031 春季").exists()


def test_a_season_by_deals_stores_them_and_its_tables_get_the_limit(world):
    admin = _client(world.host_admin)
    url = f"/leagues/{world.league.pk}/seasons/new/"
    response = admin.post(url, data(ending="deals", deals="8", time_limit_minutes="30"))
    assert response.status_code == 302, response.content.decode()[:2000]
    season = Season.objects.get(name="2031 春季")
    assert season.deals == 8 and season.time_limit_minutes == 0  # 计副制 has no match time
    assert match_options(season) == {"deals": 8}
    page = admin.get(f"/leagues/seasons/{season.pk}/").content.decode()
    assert "计副制：8 副" in page
