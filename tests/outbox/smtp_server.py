"""A real SMTP server for the outbox tests (aiosmtpd on a loopback port, in a thread).

It records every message it accepts (recipient, Message-ID, subject) and can be told to:
- refuse the next ``n`` messages with a code (``451`` by default) at the end of DATA;
- slow down a stage (``rcpt``: before the message was taken; ``data``: after it was taken and
  recorded, before the ``250`` reply reaches the client);
- hold every session that reaches a stage until released (to SIGKILL a worker there).
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import logging
import socket
import threading
import time
from dataclasses import dataclass

from aiosmtpd.controller import Controller

logging.getLogger("mail.log").setLevel(logging.WARNING)  # a line per SMTP command otherwise


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Received:
    to: str
    message_id: str
    subject: str
    body: str
    list_unsubscribe: str = ""
    list_unsubscribe_post: str = ""


class Recorder:
    """The aiosmtpd handler: its state is read and set from the test's thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.received: list[Received] = []
        self.refusals: list[str] = []  # answers still to give instead of accepting
        self.refused = 0
        self.rcpts = 0  # RCPT commands taken: sessions that got that far
        self.in_rcpt = 0  # sessions inside the RCPT answer right now
        self.delay = {"rcpt": 0.0, "data": 0.0}
        self.hold_stage: str | None = None
        self.holding = 0  # sessions waiting in the hold right now
        self.held: list[str] = []  # Message-IDs recorded while held at "data"
        self.gate = threading.Event()  # a new one per hold: a session waits on the one it met
        self.passes = 0  # sessions still let through the hold before it holds them

    async def _pause(self, stage: str, message_id: str | None = None) -> None:
        if self.delay[stage]:
            await asyncio.sleep(self.delay[stage])
        if self.hold_stage != stage:
            return
        gate = self.gate
        with self.lock:
            if self.passes > 0:
                self.passes -= 1
                return
            self.holding += 1
            if message_id:
                self.held.append(message_id)
        try:
            while not gate.is_set():
                await asyncio.sleep(0.01)
        finally:
            with self.lock:
                self.holding -= 1

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802
        with self.lock:
            self.rcpts += 1
            self.in_rcpt += 1
        try:
            await self._pause("rcpt")
        finally:
            with self.lock:
                self.in_rcpt -= 1
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        with self.lock:
            if self.refusals:
                self.refused += 1
                return self.refusals.pop(0)
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        record = Received(
            to=envelope.rcpt_tos[0],
            message_id=str(parsed["Message-ID"]),
            subject=str(parsed["Subject"]),
            body=parsed.get_body(("plain",)).get_content(),
            list_unsubscribe=str(parsed.get("List-Unsubscribe", "")).strip(),
            list_unsubscribe_post=str(parsed.get("List-Unsubscribe-Post", "")).strip(),
        )
        with self.lock:
            self.received.append(record)
        # The message is taken: a client that dies now never hears the 250.
        await self._pause("data", record.message_id)
        return "250 Message accepted for delivery"


class SmtpServer:
    """Start with :meth:`start`; ``host``/``port`` to point Django's SMTP backend at."""

    def __init__(self) -> None:
        self.recorder = Recorder()
        self.host = "127.0.0.1"
        self.port = free_port()
        self.controller = Controller(self.recorder, hostname=self.host, port=self.port)

    def start(self) -> SmtpServer:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.recorder.gate.set()
        if self.controller.loop.is_running():
            self.controller.stop()

    # ---- what the tests read and set
    @property
    def received(self) -> list[Received]:
        with self.recorder.lock:
            return list(self.recorder.received)

    def interrupted(self) -> int:
        """Sessions that reached RCPT and never finished DATA (their client died)."""
        with self.recorder.lock:
            r = self.recorder
            return r.rcpts - len(r.received) - r.refused

    def wait_in_rcpt(self, timeout: float = 30) -> bool:
        """Wait until a session is inside its (slowed) RCPT answer: a client killed now dies
        mid-send."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.recorder.in_rcpt:
                return True
            time.sleep(0.002)
        return False

    def refuse(self, count: int, answer: str = "451 4.3.0 Try again later") -> None:
        with self.recorder.lock:
            self.recorder.refusals = [answer] * count

    def slow(self, stage: str, seconds: float) -> None:
        self.recorder.delay[stage] = seconds

    def hold(self, stage: str, after: int = 0) -> None:
        """Hold every session at ``stage`` from now on, but for the first ``after`` of them."""
        with self.recorder.lock:
            self.recorder.held = []
            self.recorder.gate = threading.Event()
            self.recorder.passes = after
        self.recorder.hold_stage = stage

    def release(self, timeout: float = 10) -> None:
        """Let every held session go on, and wait until they did."""
        self.recorder.hold_stage = None
        self.recorder.gate.set()
        deadline = time.monotonic() + timeout
        while self.recorder.holding and time.monotonic() < deadline:
            time.sleep(0.01)

    def wait_holding(self, count: int, timeout: float = 60) -> int:
        """Wait until ``count`` sessions wait in the hold (or the timeout); return how many."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.recorder.holding >= count:
                break
            time.sleep(0.02)
        return self.recorder.holding

    def wait_received(self, keys_to: set[str], timeout: float = 120) -> bool:
        """Wait until every address in ``keys_to`` received at least one message."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if keys_to <= {r.to for r in self.received}:
                return True
            time.sleep(0.05)
        return False
