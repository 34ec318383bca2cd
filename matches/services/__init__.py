"""The only place that changes tables and matches, by responsibility: :mod:`.tables` (open,
seat, start; the tournament code's writes), :mod:`.play` (every action), :mod:`.clock`
(deadlines, the time limit, the sweeper) and :mod:`.presence` (connections, auto-play).
Callers import the module that owns a function; nothing is re-exported here."""
