"""The guide's examples and the lessons, played through the engine: the one source of the
facts the guide's words state, so the guide cannot drift from the rules."""

import polib
import pytest
from django.utils import translation
from django.utils.functional import Promise

from engine.cards import parse_cards
from engine.variants import combo_rules
from learn import guide, positions
from learn.lessons import COURSES, BadAnswer, judge

LESSONS = [item for lessons in COURSES.values() for item in lessons]


def test_immune_window_example():
    facts = positions.example_immune().facts
    assert facts == {
        "earned": 2,  # ♠2 ♦2: one level per 2
        "window": "immune",
        "first_asked": 1,  # the right-hand opponent is asked first
        "after": 0,  # the immune bomb cancels the 保2
        "leader": 1,  # the bomber leads next …
        "lead_kind": "jiefeng",  # … as by 接风
        "leader_initiative": False,  # without gaining the initiative
    }


def test_guan2_example():
    facts = positions.example_guan2().facts
    assert facts["over"] and facts["finish"][:2] == [0, 2]
    assert facts["base"] == 3 and facts["closed"] == 3
    assert facts["levels"] == [11, 4]  # 8 -> A: 3 for 双上 + 3 shut-in 2s


def test_closed_bomb_loop_example():
    facts = positions.example_bomb_loop().facts
    assert all(facts["chain"]) and len(facts["chain"]) == len(positions.BOMB_LOOP) - 1
    assert facts["two_beats_supreme"] and facts["four_beats_two"]
    assert not facts["two_beats_four"] and not facts["two_beats_six"]


def test_tribute_example():
    facts = positions.example_tribute().facts
    assert facts["tribute_ok"] == ["SA"]  # the wild ♥7 is left out
    assert facts["return_ok"] == ["S8", "C4"]  # the caption names exactly these
    assert facts["leader"] == 3 and facts["lead_kind"] == "tribute"
    assert facts["initiative"] is False


def test_guandan_tribute_example():
    facts = positions.example_guandan_tribute().facts
    assert facts["return_ok"] == ["HK", "SQ", "S8", "D7", "C4", "S2"]  # any card
    assert facts["leader"] == 3 and facts["lead_kind"] == "tribute"


def test_settlement_table():
    out = {s.key: s.out for s in positions.settlements()}
    assert out["excess"]["levels"] == [23, 7]  # 21 + 5 = 26: 3 beyond the top lower them
    assert out["protected"]["levels"] == [23, 23]  # a team at 2A is never lowered
    assert out["pass"]["winner"] == 0  # 1st and 3rd at 2A
    assert out["fail"]["winner"] is None and out["fail"]["attempts"][0] == 2
    assert out["third"]["levels"][0] == 0  # third failed attempt: back to level 3


def test_other_games_examples():
    assert positions.example_guandan_wild().facts["beats"]
    assert positions.example_guandan_wild().facts["readings"] == [
        {"type": "bomb", "key": "9", "size": 4}
    ]
    assert positions.example_guandan_bombs().facts == {
        "flush_beats_five": True,
        "six_beats_flush": True,
    }
    assert positions.example_honger_bombs().facts == {
        "two_beats_ace": True,
        "five_beats_four": True,
    }
    facts = positions.example_shuangkou_lines().facts
    assert facts["lines"] == [5, 6, 6] and facts["jokers_beat_five"] and facts["six_beats_jokers"]


@pytest.mark.parametrize("variant", sorted(guide.COMBO_SAMPLES))
def test_every_sample_combination_reads_as_its_type(variant):
    level, samples = guide.COMBO_SAMPLES[variant]
    rules = combo_rules(variant, level)
    for type_, cards in samples:
        assert rules.read_as(parse_cards(cards.split()), type_) is not None, (type_, cards)


def test_every_guide_example_exists():
    for book in guide.GUIDES.values():
        for section in book.sections:
            if section.example not in ("", "combos", "settlements"):
                assert section.example in positions.EXAMPLES


def test_courses_have_enough_lessons():
    assert len(COURSES["bao2"]) >= 10 and len(COURSES["guandan"]) >= 3


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda item: f"{item.course}-{item.slug}")
def test_each_lesson_right_and_wrong_through_the_engine(lesson):
    with translation.override("en"):
        right = judge(lesson, lesson.answer)
        assert right.right and right.refusal is None
        assert right.explanation == lesson.text(lesson.right)
        assert lesson.wrong_answers
        for answer in lesson.wrong_answers:
            outcome = judge(lesson, answer)
            assert not outcome.right
            expected = lesson.refusals.get(outcome.refusal, lesson.wrong)
            assert outcome.explanation == lesson.text(expected)
    with translation.override("zh-hans"):
        assert judge(lesson, lesson.answer).explanation != right.explanation  # translated


def test_refusals_come_from_the_engine():
    little = next(i for i in COURSES["bao2"] if i.slug == "little-2")
    assert judge(little, {"act": "play", "cards": ["S2"]}).refusal == "needs_initiative"
    assert judge(little, {"act": "play", "cards": ["D4"]}).refusal == "does_not_beat"
    assert judge(little, {"act": "play", "cards": ["SK"]}).refusal == "not_in_hand"
    assert judge(little, {"act": "play", "cards": ["S2", "C9"]}).refusal in {
        "invalid_combo",
        "needs_initiative",
    }
    for bad in ({"act": "play"}, {"act": "play", "cards": ["XX"]}, {"act": "jump"}, {}):
        with pytest.raises(BadAnswer):
            judge(little, bad)


def _promises(value):
    if isinstance(value, Promise):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _promises(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _promises(v)
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            yield from _promises(getattr(value, name))


@pytest.mark.parametrize("language", ["zh_Hans", "en"])
def test_every_learn_text_is_in_the_catalogue(language):
    """The guide's and the lessons' words are all translated (makemessages checks the
    templates; this checks the data the pages are built from)."""
    from learn import lessons

    po = polib.pofile(f"locale/{language}/LC_MESSAGES/django.po")
    translated = {e.msgid for e in po if e.msgstr and not e.obsolete}
    found = list(_promises([guide.GUIDES, lessons.COURSES, lessons.FATES, lessons.GUANDAN_FATES]))
    assert len(found) > 150
    missing = {p._args[0] for p in found} - translated  # the msgid of a lazy text
    assert missing == set()
