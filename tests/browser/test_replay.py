"""The replay of a finished two-deal Bao 2 match in a real browser (Playwright + the system's
Chromium, 390×844): jump to a deal, step by trick and by action, each deal ends with its
summary."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.test import override_settings
from django.utils import timezone
from playwright.sync_api import expect

from clubs.models import Club, Membership, Role, User
from engine.match import Match as EngineMatch
from matches import broadcast, schedule
from matches.models import Match
from matches.services import clock, tables

pytestmark = pytest.mark.django_db(transaction=True)
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def two_deal_match(monkeypatch):
    """A table of four bots that plays one deal, then runs out of time in the second."""
    monkeypatch.setattr(schedule, "schedule_deadline", lambda *a: None)
    monkeypatch.setattr(schedule, "schedule_time_limit", lambda *a: None)
    # nobody is connected (and Playwright's loop runs in this thread): no broadcasts
    monkeypatch.setattr(broadcast, "_send", lambda *a, **k: None)
    owner = User.objects.create_user("owner", password="x-Secret-123")
    club = Club.objects.create(name="南平保二会", slug="nanping")
    Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    table = tables.open_table(owner, club, variant="bao2", sit=False)
    for seat in range(4):
        tables.add_bot(owner, table, seat, "heuristic")
    match = Match.objects.get(table=table)
    while not EngineMatch.from_json(match.snapshot).deals:
        clock.act_on_deadline(match.pk, match.version, force=True)
        match.refresh_from_db()
    for _ in range(3):  # into the second deal
        clock.act_on_deadline(match.pk, match.version, force=True)
    Match.objects.filter(pk=match.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    assert clock.apply_time_limit(match.pk)
    match.refresh_from_db()
    while match.status != "finished":
        clock.act_on_deadline(match.pk, match.version, force=True)
        match.refresh_from_db()
    assert match.result["deals"] == 2
    return owner, match


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_replay_jumps_to_a_deal_steps_by_trick_and_shows_each_summary(new_page, monkeypatch):
    owner, match = two_deal_match(monkeypatch)
    page = new_page(locale="zh-CN", mobile=True)
    page.goto(f"/matches/tables/{match.table_id}/replay/")
    position = page.locator("#replay-pos")
    expect(position).to_have_text(f"0 / {match.version}")
    deals = page.locator("#replay-deal option")
    expect(deals).to_have_count(2)
    # the second deal: its first step, then trick by trick
    page.select_option("#replay-deal", index=1)
    second = int(page.input_value("#replay-slider"))
    assert second > 0
    expect(page.locator("#replay-action")).to_contain_text("第 2 副")
    # the step before it ended the first deal: its summary is shown
    page.get_by_role("button", name="上一步").tap()
    summary = page.locator("#replay-summary")
    expect(summary).to_be_visible()
    expect(summary).to_contain_text("第 1 副")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "replay-deal-summary-phone.png"))
    page.get_by_role("button", name="下一步").tap()
    page.get_by_role("button", name="下一轮").tap()
    first_lead = int(page.input_value("#replay-slider"))
    assert first_lead > second
    trick = page.locator("#replay-trick .trick-entry")
    expect(trick).to_have_count(1)  # a trick starts with its lead
    page.get_by_role("button", name="下一轮").tap()
    assert int(page.input_value("#replay-slider")) > first_lead
    page.get_by_role("button", name="上一轮").tap()
    assert int(page.input_value("#replay-slider")) == first_lead
    # the last step ends the match with the last deal's summary
    page.select_option("#replay-deal", index=1)
    page.evaluate(
        "() => { const s = document.querySelector('#replay-slider');"
        " s.value = s.max; s.dispatchEvent(new Event('input')); }"
    )
    expect(summary).to_contain_text("第 2 副")
    expect(summary).to_contain_text("比赛结束")
    expect(page.locator("#replay-deal")).to_have_value(str(second))
