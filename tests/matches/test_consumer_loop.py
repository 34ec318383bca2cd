"""The consumers' own loop (``matches.live.loop.Consumer``): the socket's frames and the
channel's messages reach the handlers one at a time, as in Channels; a closed socket ends the
consumer and its channel's receive; what a handler raises ends the connection with it."""

import asyncio

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from matches.live.loop import Consumer

pytestmark = pytest.mark.integration


class Probe(Consumer):
    """Frames "slow" (waits until released), "fail" (raises); group messages "probe.note"."""

    release: asyncio.Event
    started: asyncio.Event

    async def connect(self):
        await self.channel_layer.group_add("probe", self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard("probe", self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        if text_data == "fail":
            raise RuntimeError("the handler failed")
        if text_data == "slow":
            Probe.started.set()
            await Probe.release.wait()
        await self.send(text_data=f"{text_data} done")

    async def probe_note(self, message):
        await self.send(text_data=f"note {message['n']}")


def run(coroutine):
    return async_to_sync(coroutine)()


@pytest.mark.embedded  # the socket loop with the thread pools the SQLite default picks
def test_a_group_message_waits_for_the_frame_being_handled(transactional_db):
    async def scenario():
        Probe.release, Probe.started = asyncio.Event(), asyncio.Event()
        socket = WebsocketCommunicator(Probe.as_asgi(), "/ws/probe/")
        assert (await socket.connect())[0]
        await socket.send_to(text_data="slow")
        await asyncio.wait_for(Probe.started.wait(), 5)
        await get_channel_layer().group_send("probe", {"type": "probe.note", "n": 1})
        await asyncio.sleep(0.3)  # the note arrived meanwhile, and waits for the handler
        assert await socket.receive_nothing(0.1)
        Probe.release.set()
        order = [await socket.receive_from(5), await socket.receive_from(5)]
        await socket.send_to(text_data="quick")
        order.append(await socket.receive_from(5))
        await socket.disconnect()
        return order

    assert run(scenario) == ["slow done", "note 1", "quick done"]


def test_a_closed_socket_ends_the_consumer_and_its_channel(transactional_db):
    async def scenario():
        socket = WebsocketCommunicator(Probe.as_asgi(), "/ws/probe/")
        assert (await socket.connect())[0]
        await socket.send_input({"type": "websocket.disconnect", "code": 1000})
        # the application returns by itself (its channel's receive cancelled), cleanly
        await asyncio.wait_for(asyncio.shield(socket.future), 5)
        return socket.future.exception()

    assert run(scenario) is None


def test_what_a_handler_raises_ends_the_connection_with_it(transactional_db):
    async def scenario():
        socket = WebsocketCommunicator(Probe.as_asgi(), "/ws/probe/")
        assert (await socket.connect())[0]
        await socket.send_to(text_data="fail")
        # the application ends at once, with what the handler raised (a read of the socket
        # would see it only when its timeout ran out)
        with pytest.raises(RuntimeError, match="the handler failed"):
            await asyncio.wait_for(asyncio.shield(socket.future), 5)
        return socket.future.done()

    assert run(scenario)
