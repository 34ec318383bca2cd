"""The league services, by responsibility: ``setup`` (leagues, seasons, divisions, start,
close, next season), ``entries`` (teams, pairs, late entries, withdrawals), ``fixtures``
(times, club nights, extensions, line-ups) and ``play`` (tables, results, forfeits,
corrections, the tick); ``standings`` renews a season's standings key on every change they
show. Every function checks the acting user's permission first."""
