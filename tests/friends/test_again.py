"""再来一局 at a friends' table (friends.again through matches.services.again): a new room of
the same game, each person back in their seat, the bots in theirs, the others let in."""

from django.core.cache import cache
from django.test import override_settings
from django.utils import timezone
from matchkit import play_out

from friends import services
from friends.models import Admission, Room
from matches.models import Match, TableKind, TableStatus
from matches.services import again, clock, tables


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_play_again_at_a_friends_table(people):
    cache.clear()
    host, (a, _b, _c) = people["host"], people["friends"]
    room = services.open_room(host, variant="guandan")
    services.join_by_link(a, room.token)  # seat 1
    tables.add_bot(host, room.table, 2, "random")
    tables.add_bot(host, room.table, 3, "random")
    old = Match.objects.get(table=room.table)
    # the match's time runs out at once: it ends now, or after the deal the bots began
    Match.objects.filter(pk=old.pk).update(ends_at=timezone.now())
    clock.apply_time_limit(old.pk)
    play_out(old)
    new = again.play_again(a, room.table)
    assert new.kind == TableKind.FRIENDS and new.pk != room.table.pk
    assert new.status == TableStatus.OPEN
    seats = [(s.user_id, s.bot) for s in new.seats.order_by("index")]
    assert seats == [(None, ""), (a.pk, ""), (None, "random"), (None, "random")]
    new_room = Room.objects.get(table=new)
    assert new_room.host_id == a.pk and new_room.code
    # the other player was let in, and comes back to their own seat: the match starts
    assert Admission.objects.filter(room=new_room, user=host).exists()
    assert again.play_again(host, room.table).pk == new.pk
    new.refresh_from_db()
    assert new.status == TableStatus.PLAYING
    match = Match.objects.get(table=new)
    assert [s["user"] for s in match.seats] == [host.pk, a.pk, None, None]
