"""The actions sent to a server process's tables, applied in batches.

Contract: ``await submit(request, frame_id, language)`` returns the answer to one action
message: ``ack`` with the new version, or ``refused`` with the reason in ``language``. While
the action threads (:mod:`matches.live.threads`) are busy, the actions that arrive wait; the
next free thread takes them all (at most :data:`MAX_BATCH`) and
:func:`matches.services.play.submit_actions` writes them in one transaction, one write lock
and one commit for the batch. The updates of a batch are published, in order, **before** its
answers are given, so a player never has the ``ack`` of an action whose update was not sent.
Nothing is lost: every submitted action gets its answer, or the exception that stopped it;
an answer whose connection closed meanwhile is dropped. One queue per event loop, used only
from that loop.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from django.utils import translation

from matches import broadcast
from matches.live import threads
from matches.messages import MatchError
from matches.services import play

#: Most actions applied in one batch (one write transaction).
MAX_BATCH = 64

_Item = tuple[play.ActionRequest, Any, str, asyncio.Future]


class ActionQueue:
    """The actions of one event loop waiting for a thread (see the module)."""

    def __init__(self) -> None:
        self.waiting: list[_Item] = []
        self.running = 0

    async def submit(self, request: play.ActionRequest, frame_id: Any, language: str) -> dict:
        """The answer to the action ``request`` of the message ``frame_id``."""
        future = asyncio.get_running_loop().create_future()
        self.waiting.append((request, frame_id, language, future))
        self._start()
        return await future

    def _start(self) -> None:
        while self.waiting and self.running < threads.action_threads():
            batch, self.waiting = self.waiting[:MAX_BATCH], self.waiting[MAX_BATCH:]
            self.running += 1
            asyncio.ensure_future(self._run(batch))

    async def _run(self, batch: list[_Item]) -> None:
        try:
            requests = [request for request, *_ in batch]
            submitted = await threads.run(threads.ACTIONS, play.submit_actions, requests)
            if submitted.frames:
                await broadcast.publish_now(submitted.frames)
            outcomes: list[Any] = submitted.outcomes
        except Exception as error:
            outcomes = [error] * len(batch)
        finally:
            self.running -= 1
            self._start()
        for (_, frame_id, language, future), outcome in zip(batch, outcomes, strict=True):
            if future.done():  # its connection closed meanwhile
                continue
            if isinstance(outcome, play.Accepted):
                future.set_result({"type": "ack", "id": frame_id, "version": outcome.version})
            elif isinstance(outcome, MatchError):
                with translation.override(language):
                    future.set_result({"type": "refused", "id": frame_id, **outcome.to_json()})
            else:
                future.set_exception(outcome)


_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ActionQueue] = (
    weakref.WeakKeyDictionary()
)


async def submit(request: play.ActionRequest, frame_id: Any, language: str) -> dict[str, Any]:
    """The answer to an action (see the module), through the running loop's queue."""
    loop = asyncio.get_running_loop()
    queue = _queues.get(loop)
    if queue is None:
        queue = _queues[loop] = ActionQueue()
    return await queue.submit(request, frame_id, language)
