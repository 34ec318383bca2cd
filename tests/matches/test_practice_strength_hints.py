"""The practice form says what each bot strength is, in both languages (issue 44)."""

from __future__ import annotations

from html import unescape

from django.test import Client
from django.utils import translation

from matches.services import practice


def test_each_strength_is_shown_with_what_it_is_in_chinese_and_english(db):
    zh = Client().get("/matches/practice/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    en = unescape(Client().get("/matches/practice/", HTTP_ACCEPT_LANGUAGE="en").content.decode())
    for text in ("随机出牌，适合熟悉规则", "按牌型规划出牌：与比赛规则 AI 相当", "三档中最强"):
        assert text in zh
    with translation.override("en"):
        english = [str(practice.STRENGTH_HINTS[kind]) for kind in practice.STRENGTHS]
    for text in english:
        assert text not in zh and text in en  # translated, not the English
    assert "Plays at random: for learning the rules" in en
    assert "The strongest: reads the possible hands before each play" in en
    # the hint sits in the strength's own label, after its name
    start = zh.index('value="search"')
    assert zh.index("高手", start) < zh.index("三档中最强", start) < zh.index("</label>", start)
