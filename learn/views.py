"""Pages of the rules guides and the tutorials: thin views over :mod:`learn.services`.

The guide pages show what :mod:`learn.positions` builds with the engine; a lesson page shows
the lesson's position as seat 0 sees it (the engine's own observation: no other hand ever
reaches the page) and takes the learner's answer by a plain form (Post/Redirect/Get), so it
works without JavaScript; ``static/js/learn.js`` only draws the table's card faces.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from engine.cards import parse_cards
from engine.observation import deal_observation
from engine.variants import combo_rules, variant_facts
from games.variants import Variant
from learn import positions, services
from learn.guide import COMBO_SAMPLES, GUIDES, Guide
from learn.lessons import COURSES, Lesson, next_lesson
from learn.lessons import lesson as find_lesson
from learn.names import level_label, seat_label
from matches.messages import TABLE_WORDS, refusal_message
from matches.selectors import card_order

#: Session key of the last answer given on a lesson page (shown once after the redirect).
LAST_KEY = "learn.last"


def _variant_name(variant: str) -> str:
    return str(Variant(variant).label)


def index(request: HttpRequest) -> HttpResponse:
    """The way in: the four games' guides and the tutorials with this learner's progress."""
    courses = []
    for course, lessons in COURSES.items():
        solved = services.solved_lessons(request.user, request.session, course)
        courses.append(
            {
                "course": course,
                "name": _variant_name(course),
                "count": len(lessons),
                "solved": len(solved & {item.slug for item in lessons}),
            }
        )
    guides = [{"variant": v, "name": g.name, "summary": g.summary} for v, g in GUIDES.items()]
    return render(request, "learn/index.html", {"guides": guides, "courses": courses})


# --------------------------------------------------------------------------- the guides
def _type_word(type_: str) -> str:
    word = TABLE_WORDS.get(type_)
    return str(word) if word is not None else type_


def _steps(example: positions.Example, seats: int) -> list[dict[str, Any]]:
    out = []
    for step in example.steps:
        if step.kind == "pass":
            what = str(TABLE_WORDS["pass"])
        elif step.kind in ("tribute", "return"):
            what = str(TABLE_WORDS[step.kind])
        else:
            what = _type_word(step.type)
        out.append(
            {
                "who": seat_label(step.seat, seats) if step.seat >= 0 else "",
                "cards": _sorted_hand(example.variant, example.level, step.cards),
                "what": what,
                "kind": step.kind,
            }
        )
    return out


def _caption_values(example: positions.Example) -> dict[str, Any]:
    facts = dict(example.facts)
    if "levels" in facts and "before" in facts:
        facts["after"] = level_label(example.variant, facts["levels"][0])
        facts["before"] = level_label(example.variant, facts["before"][0])
    if "lines" in facts:
        facts["lines"] = " < ".join(str(n) for n in facts["lines"])
    return facts


def _combos(variant: str) -> dict[str, Any]:
    level, samples = COMBO_SAMPLES[variant]
    rules = combo_rules(variant, level)
    rows = []
    for type_, cards in samples:
        combo = rules.read_as(parse_cards(cards.split()), type_)
        if combo is None:  # the guide shows only what the engine reads (tests/learn checks)
            continue
        rows.append(
            {"what": _type_word(type_), "cards": _sorted_hand(variant, level, cards.split())}
        )
    return {"rows": rows, "level": level}


def _settlement_rows() -> list[dict[str, Any]]:
    rows = []
    for case in positions.settlements():
        out = case.out
        reasons = []
        for t in (0, 1):
            for item in out["breakdown"][t]:
                reasons.append({"team": t, "reason": item["reason"], "levels": item["levels"]})
        rows.append(
            {
                "key": case.key,
                "finish": [seat_label(s) for s in case.finish],
                "before": [level_label("bao2", n) for n in case.levels],
                "after": [level_label("bao2", n) for n in out["levels"]],
                "attempts": case.attempts[case.level_team],
                "level_team": case.level_team,
                "bao2": case.bao2,
                "closed": case.closed,
                "winner": out["winner"],
                "why": [_breakdown_word(r) for r in reasons],
            }
        )
    return rows


def _breakdown_word(item: dict[str, Any]) -> str:
    words = {
        "base": _("Base rise"),
        "bao2": _("保2 bonus"),
        "guan2": _("关2: shutting in the 2s"),
        "cap": _("Capped at the top level"),
        "excess": _("Excess lowering"),
        "attempt": _("A attempt"),
    }
    team = _("Us") if item["team"] == 0 else _("Them")
    sign = f"+{item['levels']}" if item["levels"] > 0 else str(item["levels"])
    return f"{team}: {words.get(item['reason'], item['reason'])} {sign}"


def guide(request: HttpRequest, variant: str) -> HttpResponse:
    """A game's rules guide, its examples built and checked by the engine."""
    book: Guide | None = GUIDES.get(variant)
    if book is None:
        raise Http404(_("No such game."))
    seats = variant_facts(variant).seats
    sections = []
    for section in book.sections:
        item: dict[str, Any] = {"s": section}
        if section.example == "combos":
            item["combos"] = _combos(variant)
        elif section.example == "settlements":
            item["settlements"] = _settlement_rows()
        elif section.example:
            example = positions.EXAMPLES[section.example]()
            values = _caption_values(example)
            item["example"] = {
                "level": example.level,
                "wild": card_order(example.variant, example.level)["wild"],
                "hands": [
                    {
                        "who": seat_label(s, seats),
                        "cards": _sorted_hand(book.variant, example.level, cards),
                    }
                    for s, cards in example.hands.items()
                    if cards
                ],
                "steps": _steps(example, seats),
                "caption": [str(c) % values if "%(" in str(c) else str(c) for c in section.caption],
            }
        sections.append(item)
    others = [{"variant": v, "name": g.name} for v, g in GUIDES.items() if v != variant]
    course = variant if variant in COURSES else ""
    return render(
        request,
        "learn/guide.html",
        {"guide": book, "sections": sections, "others": others, "course": course},
    )


# --------------------------------------------------------------------------- the tutorials
def course(request: HttpRequest, course: str) -> HttpResponse:
    """A tutorial's lessons, with the ones this learner has solved ticked."""
    lessons = COURSES.get(course)
    if lessons is None:
        raise Http404(_("No such tutorial."))
    solved = services.solved_lessons(request.user, request.session, course)
    items = [{"lesson": item, "solved": item.slug in solved} for item in lessons]
    return render(
        request,
        "learn/course.html",
        {
            "course": course,
            "name": _variant_name(course),
            "items": items,
            "solved": sum(1 for i in items if i["solved"]),
        },
    )


def _sorted_hand(variant: str, level: str | None, hand: list[str]) -> list[str]:
    """The hand high to low as the table sorts it: wild cards first, then by value, then suit."""
    order = card_order(variant, level)
    value, wild = order["value"], order["wild"]

    def key(card: str) -> int:
        rank = 13 if card == "SB" else 14 if card == "HR" else "23456789TJQKA".index(card[1])
        return (1000 if card == wild else 0) + value[rank] * 4 + "DCHS".index(card[0])

    return sorted(hand, key=key, reverse=True)


def _position(item: Lesson) -> dict[str, Any]:
    """The lesson's position as seat 0 sees it (the engine's observation of seat 0)."""
    assert item.build is not None
    deal = item.build()
    obs = deal_observation(deal, positions.YOU)
    seats = len(obs["counts"])
    others = []
    for s in range(1, seats):
        count = obs["counts"][s]
        place = obs["finished"].index(s) if s in obs["finished"] else None
        others.append(
            {
                "seat": s,
                "who": seat_label(s, seats),
                "count": count,
                "out": place is not None,
                "initiative": bool(obs["initiative"][s]) and obs["phase"] == "play",
            }
        )
    trick = []
    for entry in obs["trick"]:
        if entry.get("pass"):
            trick.append({"who": seat_label(entry["seat"], seats), "pass": True})
        else:
            trick.append(
                {
                    "who": seat_label(entry["seat"], seats),
                    "cards": entry["cards"],
                    "what": _type_word(entry.get("type", "")),
                }
            )
    phase = obs["phase"]
    following = phase == "immune" or (phase == "play" and not obs["lead"])
    play_word = {"tribute": TABLE_WORDS["tribute"], "return": TABLE_WORDS["return"]}.get(
        phase, TABLE_WORDS["play"]
    )
    return {
        "variant": deal.variant,
        "level": obs["level"],
        "wild": card_order(deal.variant, obs["level"])["wild"],
        "hand": _sorted_hand(deal.variant, obs["level"], obs["hand"]),
        "others": others,
        "trick": trick,
        "phase": phase,
        "following": following,
        "initiative": bool(obs["initiative"][positions.YOU]),
        "play_word": str(play_word),
        "immune_window": phase == "immune",
        "tribute": obs.get("tribute"),
        "asks": [{"seat": s, "who": seat_label(s, seats)} for s in item.asks],
    }


@require_http_methods(["GET", "POST"])
def lesson_page(request: HttpRequest, course: str, slug: str) -> HttpResponse:
    """One lesson: the position and the task; a POST is an answer, judged by the engine,
    recorded, and shown after the redirect with its explanation."""
    item = find_lesson(course, slug)
    if item is None:
        raise Http404(_("No such lesson."))
    here = reverse("learn:lesson", args=[course, slug])
    if request.method == "POST":
        act, _colon, seat = request.POST.get("act", "").partition(":")
        data = {
            "act": act,
            "cards": request.POST.getlist("cards"),
            "seat": seat,
            "choice": request.POST.get("choice", ""),
        }
        try:
            services.answer_lesson(request.user, request.session, item, data)
        except services.BadAnswer:
            return _render_lesson(
                request, item, None, _("Select your cards first, then tap a button."), status=400
            )
        request.session[LAST_KEY] = {"lesson": f"{course}/{slug}", "answer": data}
        return redirect(here + "#result")
    outcome = None
    last = request.session.get(LAST_KEY)
    if isinstance(last, dict) and last.get("lesson") == f"{course}/{slug}":
        del request.session[LAST_KEY]
        try:
            outcome = services.judge_again(item, last.get("answer") or {})
        except services.BadAnswer:
            outcome = None
    return _render_lesson(request, item, outcome, "")


def _render_lesson(
    request: HttpRequest, item: Lesson, outcome: Any, error: str, status: int = 200
) -> HttpResponse:
    lessons = COURSES[item.course]
    rule_variant, _sep, anchor = item.rule.partition("#")
    context: dict[str, Any] = {
        "lesson": item,
        "number": lessons.index(item) + 1,
        "total": len(lessons),
        "course_name": _variant_name(item.course),
        "title": str(item.title),
        "task": item.text(item.task),
        "outcome": outcome,
        "refusal": refusal_message(outcome.refusal) if outcome and outcome.refusal else "",
        "error": error,
        "next": next_lesson(item),
        "rule_url": reverse("learn:guide", args=[rule_variant]) + (f"#{anchor}" if anchor else ""),
        "pass_word": TABLE_WORDS["pass"],
    }
    if item.kind == "choice":
        assert item.choices is not None
        context["choices"] = item.choices()
    else:
        context["pos"] = _position(item)
    return render(request, "learn/lesson.html", context, status=status)
