"""Quick phrases (快捷语) at casual tables: a fixed set of short, polite words a seated player
sends to the whole table (every seat, the spectators and referees), shown by their seat for a
few seconds.

- No free text: a client sends a phrase's key (``{"type": "phrase", "phrase": "nice"}``),
  checked against :data:`PHRASES`; each viewer's page shows the words in its own language.
- Casual tables only: a rated table, and every tournament or league table, refuses them
  (``phrases_off``): signalling to a partner is a foul in the competition rules (保2 十七.1),
  and a fixed phrase can be a signal as well as free text can. A casual table's opener may
  switch them off too (``Table.phrases_allowed``; ``phrases_disabled``).
- Rate-limited per seat of a match, across connections and server processes (a token bucket
  in Redis): :data:`BURST` phrases at once, then one every :data:`EVERY_SECONDS` seconds
  (``phrase_too_soon``). A Redis that fails lets phrases through (the per-connection limits
  of the websocket still hold), as :mod:`matches.limits` does.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import redis
from django.conf import settings
from django.core.cache import cache
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from matches import broadcast
from matches.messages import MatchError
from matches.models import Match, Table

log = logging.getLogger(__name__)

#: The phrases, in the order the table offers them: key (what the client sends) → words.
PHRASES = {
    "hello": _("Hello!"),
    "good_luck": _("Good luck!"),
    "nice": _("Well played!"),
    "thanks": _("Thank you!"),
    "hurry": _("A little faster, please."),
    "sorry": _("Sorry!"),
    "again": _("Another match?"),
    "bye": _("Goodbye!"),
}

#: Phrases a seat may send at once (a full bucket).
BURST = 3
#: Seconds after which a seat gets one more phrase (up to :data:`BURST`).
EVERY_SECONDS = 3.0

#: The refusals of this module (the platform's others are in :mod:`matches.messages`).
REFUSALS = {
    "phrase_unknown": _("Choose one of the table's quick phrases."),
    "phrases_off": _(
        "Quick phrases are for casual tables only: at rated, tournament and league tables "
        "signalling to a partner is a foul (Bao 2 competition rules 十七.1)."
    ),
    "phrase_too_soon": _("Wait a few seconds before the next quick phrase."),
    "phrases_disabled": _("Quick phrases are switched off at this table."),
}

#: Take one token from a seat's bucket (a hash: ``t`` tokens, ``at`` ms of the last take),
#: refilled at one per ARGV[3] ms up to ARGV[2]; 1 if one was taken, else 0. In Redis, so
#: that two tabs or two server processes of one seat share it.
_TAKE = """
local now = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local every = tonumber(ARGV[3])
local saved = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(saved[1])
local at = tonumber(saved[2])
if tokens == nil or at == nil then
  tokens = capacity
  at = now
end
tokens = math.min(capacity, tokens + math.max(0, now - at) / every)
if tokens < 1 then
  return 0
end
redis.call('HSET', KEYS[1], 't', tostring(tokens - 1), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity * every))
return 1
"""

_client: redis.Redis | None = None
_script: Any = None
_lock = threading.Lock()


class PhraseError(MatchError):
    """A refused quick phrase: a reason ``code`` whose words are in :data:`REFUSALS` (or
    the platform's, for ``spectator`` and ``not_started``)."""

    @property
    def message(self) -> str:  # type: ignore[override]  # translated when read
        """The reason in the active language."""
        words = REFUSALS.get(self.code)
        return str(words) if words is not None else super().message


def casual(table: Table) -> bool:
    """Whether ``table`` is casual: neither rated nor a tournament's or league's."""
    return not table.rated and not table.competition


def refusal(*, rated: bool, competition: bool, allowed: bool) -> str | None:
    """Why a table with these flags takes no quick phrase (a code of :data:`REFUSALS`), or
    None if it takes them: the one rule :func:`offered` and :func:`say` apply."""
    if rated or competition:
        return "phrases_off"
    if not allowed:
        return "phrases_disabled"
    return None


def offered(table: Table) -> list[tuple[str, str]]:
    """The quick phrases a player of ``table`` may send, as ``(key, words)`` in the active
    language; none at a table that is not :func:`casual` or whose opener switched them off."""
    if refusal(rated=table.rated, competition=table.competition, allowed=table.phrases_allowed):
        return []
    return [(key, str(words)) for key, words in PHRASES.items()]


def say(match_id: int | None, seat: int | None, phrase: Any) -> dict[str, Any]:
    """Send ``phrase`` (a key of :data:`PHRASES`) from ``seat`` of match ``match_id`` to
    everyone connected to the match, and return the frame sent
    (``{"type": "phrase", "seat", "phrase"}``, the same for every viewer and outside the
    match's versions).

    Refuses with :class:`PhraseError` and sends nothing: ``not_started`` (no match),
    ``spectator`` (no seat: spectators and referees only read), ``phrase_unknown`` (anything
    but a key of the list), ``phrases_off`` (a rated, tournament or league table),
    ``phrases_disabled`` (switched off by the table's opener), ``phrase_too_soon`` (the seat's rate limit). A refused phrase does not count against the
    limit."""
    if match_id is None:
        raise PhraseError("not_started")
    if seat is None:
        raise PhraseError("spectator")
    if not isinstance(phrase, str) or phrase not in PHRASES:
        raise PhraseError("phrase_unknown")
    flags = Match.objects.filter(pk=match_id).values_list(
        "table__rated", "table__competition", "table__phrases_allowed"
    )
    found = flags.first()
    if found is None:
        raise PhraseError("not_started")
    rated, competition, allowed = found
    code = refusal(rated=rated, competition=competition, allowed=allowed)
    if code is not None:
        raise PhraseError(code)
    if not _take(match_id, seat):
        raise PhraseError("phrase_too_soon")
    frame = {"type": "phrase", "seat": seat, "phrase": phrase}
    broadcast.to_everyone(match_id, frame)
    return frame


def answer(match_id: int | None, seat: int | None, data: dict[str, Any], language: str) -> dict:
    """The websocket's answer to a ``phrase`` frame ``data`` of a connection (its match, its
    seat, its language): ``ack`` once sent, else ``refused`` with the reason in ``language``;
    both carry the frame's ``id``."""
    with translation.override(language):
        try:
            say(match_id, seat, data.get("phrase"))
        except MatchError as error:
            return {"type": "refused", "id": data.get("id"), **error.to_json()}
    return {"type": "ack", "id": data.get("id")}


def _take(match_id: int, seat: int) -> bool:
    """Take one phrase from the seat's bucket; True if there was one (or Redis failed)."""
    # the cache's key prefix: keys of another site (or test) on the same Redis stay apart
    key = cache.make_key(f"phrases:{match_id}:{seat}")
    try:
        taken = _take_script()(
            keys=[key], args=[int(time.time() * 1000), BURST, int(EVERY_SECONDS * 1000)]
        )
    except (redis.RedisError, OSError):
        log.warning("quick phrase limits unavailable (Redis): let through", exc_info=True)
        return True
    return bool(taken)


def _take_script() -> Any:
    """The registered :data:`_TAKE` script on this process's Redis client (one pool per
    process, as :mod:`matches.schedule` has)."""
    global _client, _script
    if _script is None:
        with _lock:
            if _script is None:
                _client = redis.Redis.from_url(
                    settings.REDIS_URL, socket_timeout=1.0, socket_connect_timeout=1.0
                )
                _script = _client.register_script(_TAKE)
    return _script
