"""The websocket stack (``config.busy.auth_stack``) puts the session and its user in the scope
and hands the application the server's own ``send``: no wrapper looks at the session on every
frame. Other protocols keep Channels' wrapper, which saves a changed session."""

import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from matchkit import make_user

from config.busy import auth_stack

pytestmark = pytest.mark.integration


def run_stack(scope_type, cookie):
    """What the application behind the stack gets: its scope and its ``send``."""
    seen = {}

    async def app(scope, receive, send):
        seen["user"] = scope["user"]
        seen["session_key"] = scope["session"].session_key
        seen["send"] = send

    async def receive():
        return {"type": f"{scope_type}.disconnect"}

    async def send(message):  # the server's: nothing is sent here
        return None

    scope = {"type": scope_type, "path": "/ws/x/", "headers": [(b"cookie", cookie.encode())]}
    async_to_sync(auth_stack(app))(scope, receive, send)
    return seen, send


def test_a_websocket_gets_its_user_and_the_servers_own_send(transactional_db):
    user = make_user("socketuser")
    client = Client()
    client.force_login(user)
    key = client.cookies["sessionid"].value

    seen, send = run_stack("websocket", f"sessionid={key}")
    assert seen["user"] == user and seen["session_key"] == key
    assert seen["send"] is send

    seen, send = run_stack("http", f"sessionid={key}")
    assert seen["user"] == user
    assert seen["send"] is not send  # Channels' wrapper, which saves a changed session

    seen, _ = run_stack("websocket", "")
    assert not seen["user"].is_authenticated
