"""The process behind ``Stack.query``: Django set up once, then a fresh child per query.

Starting Python and setting Django up costs one to three seconds of CPU; the end-to-end and
browser tests ask the stack's database hundreds of times (some every half second while they
wait), which slowed the stack they were waiting for. This process sets Django up once, then for
each request forks: the child is what a fresh ``python -c`` with ``django.setup()`` would be (no
database connection, no cache, nothing imported by an earlier query), runs the code, and
returns what it assigned to ``out``.

Protocol, one JSON object a line: in ``{"code": "..."}``, out ``{"out": ...}`` or
``{"error": "traceback"}``. What the code prints goes to this process' stderr (the stack's log).
"""

from __future__ import annotations

import json
import os
import sys
import traceback


def _child(code: str, reply: int) -> None:
    """Run ``code`` in a fresh namespace; write its ``out`` (or the error) to ``reply``."""
    try:
        namespace = {"__name__": "__main__"}
        exec(compile(code, "<query>", "exec"), namespace)
        data = json.dumps({"out": namespace["out"]})
    except BaseException:
        data = json.dumps({"error": traceback.format_exc()})
    try:
        from django.db import connections

        connections.close_all()
    except Exception:
        pass
    with os.fdopen(reply, "w") as handle:
        handle.write(data)
    sys.stdout.flush()
    sys.stderr.flush()


def main() -> None:
    """Set Django up, then answer one query a line of stdin until it closes."""
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # what queries print must not mix with the replies
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    channel.write(json.dumps({"ready": True}) + "\n")
    channel.flush()
    for line in sys.stdin:
        code = json.loads(line)["code"]
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            _child(code, write)
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as handle:
            data = handle.read()
        os.waitpid(pid, 0)
        channel.write((data or json.dumps({"error": "the query's process died"})) + "\n")
        channel.flush()


if __name__ == "__main__":
    sys.path[0] = ""  # as ``python -c`` in the stack's folder: the project, not tests/e2e
    main()
