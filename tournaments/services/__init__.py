"""The only place that changes tournaments, one module per responsibility (callers import
the module that owns what they need; nothing is re-exported here):

* :mod:`~tournaments.services.setup`: organisers (club owner / admins,
  :func:`tournaments.permissions.can_manage`) create, edit, publish (opens registration by
  its window), pause, resume and cancel; :func:`~tournaments.services.setup.managed` is the
  lock and permission check every organiser action starts with.
* :mod:`~tournaments.services.entries`: players (club members) register (a pair registers
  both partners), check in and withdraw.
* :mod:`~tournaments.services.rounds`: pair the next round (edit it with ``swap_entries``),
  start it by hand (the number and times of rounds are read in :mod:`tournaments.selectors`,
  which never import a service).
* :mod:`~tournaments.services.results`: enter or correct a result (in elimination the
  bracket after it follows); collect those of live matches and confirmed score sheets.
* :mod:`~tournaments.services.rating`: a rated tournament feeds the club ladder, once per
  game.
* :mod:`~tournaments.services.forfeits`: no-shows forfeit after the grace period.
* :mod:`~tournaments.services.schedule`: ``tick`` (Celery beat, with the current time)
  starts each tournament and each round at its time (or as soon as the previous round has
  finished), opens the tables with the seats assigned, collects results, forfeits no-shows; what is
  due is :func:`tournaments.selectors.next_step`.

Every refusal raises :class:`~tournaments.services.errors.TournamentError` (a
:class:`games.errors.Refused`, so the API answers 400 / 403 / 404 with its code) having
changed nothing.
"""
