"""``python -m engine.bots [VARIANT] [MATCHES]``: heuristic against random, as JSON."""

from engine.bots import main

raise SystemExit(main())
