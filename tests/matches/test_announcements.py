"""What the table says aloud (matches.announcements; static/js/speech.js builds the same texts
from the same templates, sent with the page): every kind in both languages."""

import re

import pytest
from django.utils import translation

from matches.announcements import (
    ANNOUNCEMENTS,
    SPOKEN_COMBOS,
    SPOKEN_RANKS,
    announcement,
    spoken_words,
)
from matches.messages import TABLE_WORDS

VALUES = {"name": "上家", "n": 5, "type": "pair", "rank": "8"}
HAN = re.compile(r"[\u4e00-\u9fff]")

EXPECTED = {
    "zh-hans": {
        "your_turn": "轮到你了",
        "play": "上家 对8",
        "pass": "上家 不要",
        "report": "上家 报 5 张",
        "report_one": "上家 报单",
        "bao2": "上家 保2",
        "guan2": "关2",
        "tribute": "上家 进贡",
        "deal_over": "本副结束",
        "match_over": "对局结束",
    },
    "en": {
        "your_turn": "Your turn",
        "play": "上家 plays pair of 8",
        "pass": "上家 passes",
        "report": "上家 has 5 cards left",
        "report_one": "上家 has one card left",
        "bao2": "上家 makes Bao 2",
        "guan2": "The 2s are shut in",
        "tribute": "上家 gives a tribute",
        "deal_over": "The deal is over",
        "match_over": "The match is over",
    },
}


@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("kind", list(ANNOUNCEMENTS))
def test_every_announcement_kind_is_said_in_both_languages(kind, language):
    with translation.override(language):
        text = announcement(kind, **VALUES)
    assert text == EXPECTED[language][kind]
    assert "%(" not in text


def test_every_kind_has_its_expected_text():
    # a new kind must be given its words in both languages above
    assert set(EXPECTED["zh-hans"]) == set(EXPECTED["en"]) == set(ANNOUNCEMENTS)


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_every_combo_and_rank_is_said(language):
    with translation.override(language):
        for type in SPOKEN_COMBOS:
            text = announcement("play", name="下家", type=type, rank="8")
            assert text.startswith("下家 ") and len(text) > len("下家 ")
            if language == "zh-hans":
                assert HAN.search(text[3:]) or text.endswith("8"), (type, text)
        play, single = str(ANNOUNCEMENTS["play"]), str(SPOKEN_COMBOS["single"])
        for rank, said in SPOKEN_RANKS.items():
            expected = play % {"name": "你", "combo": single % {"rank": said}}
            assert announcement("play", name="你", type="single", rank=rank) == expected
    with translation.override("zh-hans"):
        assert announcement("play", name="下家", type="bomb") == "下家 炸弹"
        assert announcement("play", name="对家", type="single", rank="HR") == "对家 大王"
        assert announcement("play", name="对家", type="pair", rank="T") == "对家 对十"


def test_the_page_gets_every_template():
    words = spoken_words()
    for kind in ANNOUNCEMENTS:
        assert f"say_{kind}" in TABLE_WORDS and f"say_{kind}" in words
    for type in SPOKEN_COMBOS:
        assert f"say_combo_{type}" in TABLE_WORDS
    for rank in SPOKEN_RANKS:
        assert f"say_rank_{rank}" in TABLE_WORDS
    with translation.override("zh-hans"):
        assert str(TABLE_WORDS["say_report"]) == "%(name)s 报 %(n)s 张"
        assert str(TABLE_WORDS["setting_voice"]) == "语音"
