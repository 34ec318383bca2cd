"""Live play's runtime inside an ASGI server process: what happens between a table's socket
(:mod:`matches.consumers`, a thin adapter) and the services that decide
(:mod:`matches.services.play` and the rest).

- :mod:`~matches.live.loop`: the socket's message loop (handlers one at a time; nothing sent
  after the server closed the socket);
- :mod:`~matches.live.intake`: a client frame's size, shape and per-connection rate checks;
- :mod:`~matches.live.batching`: the actions of the process applied in batches, their updates
  published before their answers;
- :mod:`~matches.live.threads`: the thread pools of the database and engine work, made on first
  use, sized and chosen by settings;
- :mod:`~matches.live.answers`: what a connection asks of the database and the engine;
- :mod:`~matches.live.ordering`: a connection's frames forwarded in the order of the versions.

The path of a player's action: docs/architecture.md, "Live play".
"""
