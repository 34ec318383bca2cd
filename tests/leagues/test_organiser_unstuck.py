"""Issue 45: an organiser on a phone finds the leagues, never gets a season stuck, reads
every refusal in their own words, cannot set a start in the past."""

from django.test import Client


def _client(user):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(user)
    return client


def test_leagues_are_linked_from_the_header_the_club_page_and_its_manage_page(world):
    admin = _client(world.host_admin)
    league_url = f"/leagues/{world.league.pk}/"
    create_url = f"/leagues/clubs/{world.host.slug}/new/"
    club_page = admin.get(f"/clubs/{world.host.slug}/").content.decode()
    assert league_url in club_page and create_url in club_page
    assert 'href="/leagues/"' in club_page  # the header
    manage = admin.get(f"/clubs/{world.host.slug}/manage/").content.decode()
    assert league_url in manage and create_url in manage
    # a member sees the leagues, not the link to create one
    member = _client(world.member(world.host))
    page = member.get(f"/clubs/{world.host.slug}/").content.decode()
    assert league_url in page and create_url not in page


def test_a_wrong_division_is_removed_and_entries_moved_then_the_season_starts(world):
    """The stuck season of the issue: a second division added by mistake, one team in it."""
    import pytest

    from leagues.models import SeasonStatus
    from leagues.services import setup
    from leagues.services.errors import LeagueError

    season = world.season()
    first = season.divisions.get()
    wrong = setup.add_division(world.host_admin, season, "乙级")
    # a new entry goes to the lowest division: the wrong one
    b, _ = world.team(season, world.host, world.host_admin, "南通一队")
    world.team(season, world.guest, world.guest_admin, "如皋一队", division=first)
    assert b.division_id == wrong.pk
    with pytest.raises(LeagueError) as refused:
        setup.start_season(world.host_admin, season)
    # names the divisions and the way out
    assert "乙级" in refused.value.message and first.name in refused.value.message
    with pytest.raises(LeagueError) as refused:
        setup.remove_division(world.host_admin, season, wrong)
    assert refused.value.code == "division_not_empty"
    with pytest.raises(LeagueError):  # only the organisers
        setup.move_entry(world.guest_admin, b, first)
    # on the page: move the team up, then remove the empty division
    admin = _client(world.host_admin)
    page = admin.get(f"/leagues/seasons/{season.pk}/").content.decode()
    assert "data-setup-divisions" in page
    admin.post(
        f"/leagues/seasons/{season.pk}/do/move_entry/", {"entry": b.pk, "division": first.pk}
    )
    b.refresh_from_db()
    assert b.division_id == first.pk
    admin.post(f"/leagues/seasons/{season.pk}/do/remove_division/", {"division": wrong.pk})
    assert list(season.divisions.values_list("level", flat=True)) == [1]
    with pytest.raises(LeagueError) as refused:  # a season keeps one division
        setup.remove_division(world.host_admin, season, first)
    assert refused.value.code == "last_division"
    admin.post(f"/leagues/seasons/{season.pk}/do/start/")
    season.refresh_from_db()
    assert season.status == SeasonStatus.RUNNING


def test_divisions_through_the_api(world):
    season = world.season()
    top = season.divisions.get()
    middle = setup_division(world, season, "乙级")
    bottom = setup_division(world, season, "丙级")
    a, _ = world.team(season, world.host, world.host_admin, "南通一队", division=middle)
    api = Client()
    api.force_login(world.host_admin)
    base = f"/api/v1/league-seasons/{season.pk}"
    answer = api.post(f"{base}/remove-division/", {"division": middle.pk}, "application/json")
    assert answer.status_code == 400 and answer.json()["code"] == "division_not_empty"
    answer = api.post(
        f"{base}/move-entry/", {"entry": a.pk, "division": top.pk}, "application/json"
    )
    assert answer.status_code == 200
    answer = api.post(f"{base}/remove-division/", {"division": middle.pk}, "application/json")
    assert answer.status_code == 204
    bottom.refresh_from_db()
    assert bottom.level == 2  # moved up
    outsider = Client()
    outsider.force_login(world.guest_admin)
    answer = outsider.post(f"{base}/remove-division/", {"division": bottom.pk}, "application/json")
    assert answer.status_code == 403


def setup_division(world, season, name):
    from leagues.services import setup

    return setup.add_division(world.host_admin, season, name)


def test_season_settings_refused_in_words_all_at_once(world):
    from datetime import date

    import pytest
    from django.utils import translation

    from leagues.models import Season
    from leagues.services import setup
    from leagues.services.errors import LeagueError

    with translation.override("zh-hans"), pytest.raises(LeagueError) as refused:
        setup.create_season(
            world.host_admin,
            world.league,
            name="2020 春季",
            variant="bao2",
            entry_kind="team",
            starts_on=date(2020, 3, 4),
            points_win=1,
            points_draw=2,
            swiss_rounds=99,
        )
    error = refused.value
    assert "season_points_ordered" not in error.message and "约束" not in error.message
    assert set(error.fields) == {"points_draw", "starts_on", "swiss_rounds"}
    assert "2020-03-04" in error.message
    assert not Season.objects.filter(name="2020 春季").exists()


def test_the_season_form_shows_each_problem_beside_its_field(world):
    admin = _client(world.host_admin)
    data = {
        "name": "2020 春季",
        "variant": "bao2",
        "entry_kind": "team",
        "format": "round_robin",
        "swiss_rounds": "5",
        "online": "on",
        "time_limit_minutes": "0",
        "deals": "0",
        "team_tables": "2",
        "points_win": "1",
        "points_draw": "2",
        "points_loss": "0",
        "tiebreak1": "level_diff",
        "tiebreak2": "head_to_head",
        "tiebreak3": "buchholz",
        "starts_on": "2020-03-04",
        "window_days": "7",
    }
    page = admin.get(f"/leagues/{world.league.pk}/seasons/new/").content.decode()
    page = admin.post(f"/leagues/{world.league.pk}/seasons/new/", data).content.decode()
    assert "season_points_ordered" not in page and "约束" not in page
    assert "2020-03-04" in page  # the past first day, refused with its reason
    assert page.count('class="errorlist') >= 2 or page.count("errorlist") >= 2


def test_a_drawn_round_is_scheduled_not_a_tie(world, two_teams):
    season = two_teams[0]
    page = _client(world.host_admin).get(f"/leagues/seasons/{season.pk}/").content.decode()
    rounds = page[page.index("fixtures") :]
    assert "已编排" in rounds and " · 平" not in rounds
