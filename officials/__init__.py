"""Officials of an event: the chief referee (裁判长), referees and the appeals committee
(仲裁委员会) of a tournament or a league season, written appeals (申诉) and the organiser's
announcements (national rules 第三十四–三十九条)."""
