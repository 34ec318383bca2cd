"""A finished match's result, as lines of text and as a PNG card drawn on the server (Pillow).

:func:`result_summary` reads the result in the active language (level names, points, places);
:func:`render_card` draws it. The card needs a font with Chinese characters: the first of
:data:`CJK_FONTS` found (Debian's ``fonts-noto-cjk``, which ``.ci/run`` installs; the setting
``REVIEWS_CARD_FONT`` overrides the list). Without one the card is drawn with Pillow's own
font in English, which has every glyph it needs (no boxes for missing characters).
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import override, pgettext
from PIL import Image, ImageDraw, ImageFont

from games.variants import game, level_names

log = logging.getLogger(__name__)

#: Where a CJK font is looked for, first found wins.
CJK_FONTS = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    "/System/Library/Fonts/PingFang.ttc",
)
#: The card's size: the 1.91:1 of Open Graph's large previews.
WIDTH, HEIGHT = 1200, 630


#: Sources of lines an app above adds to a result card (records: the honours the match's
#: players hold), each ``source(match) -> lines`` in the active language.
_card_lines: list[Callable[[Any], list[str]]] = []


def register_card_lines(source: Callable[[Any], list[str]]) -> None:
    """Register ``source(match) -> list of lines`` (in the active language) for the card and
    the share page of a finished match, e.g. the honours its players won. Once."""
    if source not in _card_lines:
        _card_lines.append(source)


def card_lines(match: Any) -> list[str]:
    """Every registered source's lines for ``match`` (a failing source adds none: a card is
    never refused for an extra)."""
    out: list[str] = []
    for source in _card_lines:
        try:
            out.extend(source(match))
        except Exception:  # the card is drawn without that source's lines
            log.warning("result card lines of match %s not read", match.pk, exc_info=True)
    return out


@lru_cache(maxsize=1)
def cjk_font_path() -> str | None:
    """The path of the first CJK font found (``REVIEWS_CARD_FONT`` first), or None."""
    wanted = getattr(settings, "REVIEWS_CARD_FONT", "")
    for path in ((wanted,) if wanted else ()) + CJK_FONTS:
        if path and Path(path).is_file():
            try:
                ImageFont.truetype(path, 20)
            except OSError:
                continue
            return path
    return None


def _font(size: int) -> Any:
    path = cjk_font_path()
    if path is not None:
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


def _place(k: int) -> str:
    """A place in the match's ranking (not a deal's finishing order, 上游 …)."""
    places = [
        pgettext("ranking", "1st"),
        pgettext("ranking", "2nd"),
        pgettext("ranking", "3rd"),
        pgettext("ranking", "4th"),
    ]
    return places[k] if k < len(places) else str(k + 1)


def result_summary(match: Any) -> dict[str, Any]:
    """The result of finished ``match`` in the active language: ``title`` (game and table),
    ``club``, ``date``, and ``rows`` — per team (level games) or seat (point games), best
    first: ``place``, ``names``, ``value`` (the level reached or the points), ``won``."""
    table = match.table
    facts = game(match.variant)
    result = match.result or {}
    score = list(result.get("score") or [])
    winner = result.get("winner")
    names = [s.get("name") or _("Bot {n}").format(n=i + 1) for i, s in enumerate(match.seats or [])]
    rows: list[dict[str, Any]] = []
    if facts.levels:
        levels = level_names(match.variant)
        for team in (0, 1):
            index = score[team] if team < len(score) else 0
            rows.append(
                {
                    "names": " · ".join(n for i, n in enumerate(names) if i % 2 == team),
                    "value": levels[index] if 0 <= index < len(levels) else str(index),
                    "won": winner == team,
                    "score": index,
                }
            )
    else:
        for seat, name in enumerate(names):
            points = score[seat] if seat < len(score) else 0
            rows.append(
                {
                    "names": name,
                    "value": _("%(n)s points") % {"n": points},
                    "won": winner == seat,
                    "score": points,
                }
            )
    rows.sort(key=lambda r: (not r["won"], -r["score"]))
    for row in rows:  # tied rows share a place (a draw: both teams first)
        if winner is None or not facts.levels:
            ahead = sum(1 for r in rows if (r["won"], r["score"]) > (row["won"], row["score"]))
        else:
            ahead = 0 if row["won"] else 1
        row["place"] = _place(ahead)
    finished = match.finished_at or timezone.now()
    return {
        "title": f"{table.get_variant_display()} · #{table.pk}",
        "club": table.club.name if table.club_id else "",
        "date": timezone.localtime(finished).strftime("%Y-%m-%d"),
        "rows": rows,
        "draw": winner is None,
        "honours": card_lines(match),
    }


def render_card(match: Any, language: str) -> bytes:
    """The PNG card of finished ``match`` in ``language`` (English without a CJK font)."""
    if cjk_font_path() is None:
        language = "en"
    with override(language):
        summary = result_summary(match)
        brand = _("Bao 2 Club")
        won = _("Won")
        draw = _("Draw")
    image = Image.new("RGB", (WIDTH, HEIGHT), (20, 83, 45))  # the felt's green
    draw_ = ImageDraw.Draw(image)
    draw_.rectangle((24, 24, WIDTH - 24, HEIGHT - 24), outline=(234, 179, 8), width=6)
    draw_.text((64, 56), brand, font=_font(34), fill=(250, 204, 21))
    draw_.text((64, 110), summary["title"], font=_font(64), fill=(255, 255, 255))
    sub = " · ".join(x for x in (summary["club"], summary["date"]) if x)
    draw_.text((64, 196), sub, font=_font(34), fill=(220, 252, 231))
    y = 270
    rows = summary["rows"]
    size = 48 if len(rows) <= 2 else 38
    for row in rows:
        colour = (255, 255, 255) if row["won"] else (220, 252, 231)
        draw_.text((64, y), row["place"], font=_font(size), fill=colour)
        draw_.text((220, y), _fit(draw_, row["names"], size, 620), font=_font(size), fill=colour)
        draw_.text((880, y), row["value"], font=_font(size), fill=colour)
        if row["won"]:
            draw_.text((1040, y), won, font=_font(size), fill=(250, 204, 21))
        y += size + 36
    if summary["draw"]:
        draw_.text((64, y), draw, font=_font(size), fill=(250, 204, 21))
        y += size + 36
    for line in summary["honours"][: max(0, (HEIGHT - 60 - y) // 46)]:
        draw_.text(
            (64, y), _fit(draw_, "★ " + line, 34, WIDTH - 140), font=_font(34), fill=(250, 204, 21)
        )
        y += 46
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _fit(draw_: Any, text: str, size: int, width: int) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels at ``size``."""
    font = _font(size)
    if draw_.textlength(text, font=font) <= width:
        return text
    while text and draw_.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"
