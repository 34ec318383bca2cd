"""Friends' tables (friends.services): codes and links, admission and seats, the host's
removals, bots, expiry when the table ends, rate-limited look-ups, never rated."""

import pytest
from django.db import IntegrityError, transaction
from django.test import override_settings
from django.utils import translation
from matchkit import make_user, play_out

from clubs import services as club_services
from clubs.models import Membership, Role, Visibility
from friends import services
from friends.errors import FriendsError
from friends.models import Admission, Room
from ladder.models import RatedResult
from matches.messages import MatchError
from matches.models import Match, Table, TableStatus
from matches.services import tables


def seats_of(table):
    return [(s.user_id, s.bot) for s in Table.objects.get(pk=table.pk).seats.order_by("index")]


def test_a_friends_table_is_clubless_unrated_private_and_has_a_code_and_a_link(people):
    host = people["host"]
    room = services.open_room(host, variant="bao2")
    table = room.table
    assert table.kind == "friends" and table.club_id is None
    assert not table.rated and not table.spectators_allowed and not table.competition
    assert seats_of(table)[0] == (host.pk, "")
    assert len(room.code) == 6 and room.code.isdigit()
    assert len(room.token) >= 43  # 32 random bytes
    # a second room: another code and another token
    other = services.open_room(host, variant="guandan")
    assert other.code != room.code and other.token != room.token


@pytest.mark.parametrize("variant", ["bao2", "guandan", "honger", "shuangkou2"])
def test_every_game_opens(people, variant):
    room = services.open_room(people["host"], variant=variant)
    assert room.table.variant == variant


def test_the_database_keeps_a_clubless_table_unrated(people):
    room = services.open_room(people["host"], variant="bao2")
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=room.table_id).update(rated=True)
    with pytest.raises(MatchError) as refused:
        tables.open_table(people["host"], None, kind="friends", variant="bao2", rated=True)
    assert refused.value.code == "bad_options"


def test_guests_and_anonymous_cannot_open_or_join(people):
    from django.contrib.auth.models import AnonymousUser

    room = services.open_room(people["host"], variant="bao2")
    for user, code in ((people["guest"], "guest"), (AnonymousUser(), "login_required")):
        for attempt in (
            lambda u: services.open_room(u, variant="bao2"),
            lambda u: services.join_by_code(u, room.code, "10.0.0.1"),
            lambda u: services.join_by_link(u, room.token),
        ):
            with pytest.raises(FriendsError) as refused:
                attempt(user)
            assert refused.value.code == code
    assert not Admission.objects.exists()
    assert sum(1 for s in seats_of(room.table) if s[0]) == 1


def test_friends_come_in_by_code_and_by_link_and_take_the_next_seats(people):
    host, (a, b, c) = people["host"], people["friends"]
    room = services.open_room(host, variant="bao2")
    assert services.join_by_code(a, f" {room.code[:3]} {room.code[3:]} ", "10.0.0.1") == room.table
    wide = room.code.translate(str.maketrans("0123456789", "０１２３４５６７８９"))
    assert services.join_by_code(b, wide, "10.0.0.2") == room.table  # a Chinese keyboard's digits
    assert [s[0] for s in seats_of(room.table)] == [host.pk, a.pk, b.pk, None]
    # coming back changes nothing
    services.join_by_link(a, room.token)
    assert [s[0] for s in seats_of(room.table)] == [host.pk, a.pk, b.pk, None]
    assert {x.via for x in Admission.objects.all()} == {"code"}
    services.join_by_link(c, room.token)  # the last seat: the match starts
    assert Match.objects.filter(table=room.table).exists()
    assert Admission.objects.get(user=c).via == "link"


def test_a_wrong_code_is_refused_with_a_translated_message_and_changes_nothing(people):
    host, (a, *_) = people["host"], people["friends"]
    room = services.open_room(host, variant="bao2")
    wrong = f"{(int(room.code) + 1) % 10**6:06d}"
    for text in (wrong, "12345", "abcdef", "1234567", ""):
        with translation.override("zh-hans"), pytest.raises(FriendsError) as refused:
            services.join_by_code(a, text, "10.0.0.1")
        assert refused.value.code == "bad_code"
        assert refused.value.message == "没有用这个房间号开着的好友房，请核对六位数字。"
    with translation.override("en"):
        assert FriendsError("bad_code").message.startswith("No friends' table is open")
    with pytest.raises(FriendsError) as refused:
        services.join_by_link(a, "x" * 43)
    assert refused.value.code == "bad_link"
    assert not Admission.objects.exists()
    assert sum(1 for s in seats_of(room.table) if s[0]) == 1


def test_codes_are_unique_among_open_rooms(people, monkeypatch):
    """A drawn code another open room holds is drawn again."""
    draws = iter([123456, 123456, 123456, 654321])
    monkeypatch.setattr(services.secrets, "randbelow", lambda n: next(draws))
    first = services.open_room(people["host"], variant="bao2")
    second = services.open_room(people["host"], variant="bao2")
    assert (first.code, second.code) == ("123456", "654321")


def test_a_code_expires_when_the_table_ends_and_may_serve_again(people, monkeypatch):
    host, (a, b, *_) = people["host"], people["friends"]
    room = services.open_room(host, variant="shuangkou2", options={"deals": 1})
    code, token = room.code, room.token
    services.join_by_code(a, code, "10.0.0.1")  # two seats: the match starts
    match = Match.objects.get(table=room.table)
    play_out(match)
    assert Table.objects.get(pk=room.table_id).status == TableStatus.FINISHED
    # the code admits nobody now, exactly like a code that never existed
    with pytest.raises(FriendsError) as refused:
        services.join_by_code(b, code, "10.0.0.2")
    assert refused.value.code == "bad_code"
    assert Room.objects.get(pk=room.pk).code is None
    # the link tells a newcomer the table has ended; a player still finds their table
    with pytest.raises(FriendsError) as refused:
        services.join_by_link(b, token)
    assert refused.value.code == "ended"
    assert services.join_by_link(a, token).pk == room.table_id
    # the six digits may serve a new room
    monkeypatch.setattr(services.secrets, "randbelow", lambda n: int(code))
    assert services.open_room(host, variant="bao2").code == code


def test_ended_tables_release_their_codes_before_a_new_one_is_drawn(people):
    room = services.open_room(people["host"], variant="bao2")
    Table.objects.filter(pk=room.table_id).update(status=TableStatus.CLOSED)
    assert services.release_ended_codes() == 1
    assert Room.objects.get(pk=room.pk).code is None


@override_settings(FRIENDS_CODE_LOOKUPS_PER_USER=3, FRIENDS_CODE_LOOKUPS_PER_ADDRESS=5)
def test_code_lookups_are_rate_limited_per_user_and_per_address(people):
    host, (a, b, c) = people["host"], people["friends"]
    room = services.open_room(host, variant="bao2")
    for _ in range(3):
        with pytest.raises(FriendsError):
            services.join_by_code(a, "000000" if room.code != "000000" else "000001", "10.0.0.1")
    # the right code too, once over the limit: a guesser learns nothing more
    with pytest.raises(FriendsError) as refused:
        services.join_by_code(a, room.code, "10.0.0.9")
    assert refused.value.code == "rate_limited" and refused.value.status == 429
    # the address's limit counts every user's look-ups from it (3 of a's + 2 of b's = 5)
    for _ in range(2):
        with pytest.raises(FriendsError):
            services.join_by_code(b, "999999" if room.code != "999999" else "999998", "10.0.0.1")
    with pytest.raises(FriendsError) as refused:
        services.join_by_code(c, room.code, "10.0.0.1")
    assert refused.value.code == "rate_limited"
    # from another address, a user under their own limit still comes in
    services.join_by_code(c, room.code, "10.0.0.2")
    assert c.pk in [s[0] for s in seats_of(room.table)]


def test_the_host_removes_an_occupant_before_the_first_deal_only(people):
    host, (a, b, c) = people["host"], people["friends"]
    room = services.open_room(host, variant="bao2")
    services.join_by_code(a, room.code, "10.0.0.1")
    services.join_by_link(b, room.token)
    table = room.table
    # only the host, never their own seat, only a taken seat
    for user, index, code in ((a, 2, "not_host"), (host, 0, "own_seat"), (host, 3, "no_occupant")):
        with pytest.raises(FriendsError) as refused:
            services.remove_occupant(user, table, index)
        assert refused.value.code == code
    services.remove_occupant(host, table, 2)
    assert [s[0] for s in seats_of(table)] == [host.pk, a.pk, None, None]
    # the removed friend does not come back in, by link or code
    with pytest.raises(FriendsError) as refused:
        services.join_by_link(b, room.token)
    assert refused.value.code == "removed"
    with pytest.raises(MatchError) as refused:
        tables.take_seat(b, table, 2)
    assert refused.value.code == "not_invited"
    # a bot may be removed too
    tables.add_bot(host, table, 2, "heuristic")
    services.remove_occupant(host, table, 2)
    assert seats_of(table)[2] == (None, "")
    # once the last seat is taken the first deal begins: no more removals
    tables.add_bot(host, table, 2, "random")
    services.join_by_code(c, room.code, "10.0.0.3")
    assert Match.objects.filter(table=table).exists()
    with pytest.raises(FriendsError) as refused:
        services.remove_occupant(host, table, 1)
    assert refused.value.code == "started"


def test_bots_fill_the_empty_seats_and_only_the_host_adds_them(people):
    host, (a, *_) = people["host"], people["friends"]
    room = services.open_room(host, variant="guandan")
    services.join_by_code(a, room.code, "10.0.0.1")
    with pytest.raises(MatchError) as refused:
        tables.add_bot(a, room.table, 2, "heuristic")
    assert refused.value.code == "not_allowed"
    tables.add_bot(host, room.table, 2, "heuristic")
    tables.add_bot(host, room.table, 3, "search")
    match = Match.objects.get(table=room.table)
    assert [s["bot"] for s in match.seats] == ["", "", "heuristic", "search"]


def test_a_friends_table_is_never_rated(people):
    """Two people play a whole match: no result reaches any ladder."""
    host, (a, *_) = people["host"], people["friends"]
    club = club_services.create_club(host, name="Host's club")
    Membership.objects.create(club=club, user=a, role=Role.MEMBER)
    room = services.open_room(host, variant="shuangkou2", options={"deals": 1})
    services.join_by_code(a, room.code, "10.0.0.1")
    play_out(Match.objects.get(table=room.table))
    assert Match.objects.get(table=room.table).status == "finished"
    assert not RatedResult.objects.exists()
    assert not Table.objects.get(pk=room.table_id).rated


def test_codes_exist_only_for_friends_tables(people):
    """No code leads to a club's table: a members-only club's tables get no room."""
    host = people["host"]
    club = club_services.create_club(host, name="Members only")
    club.visibility = Visibility.MEMBERS
    club.save()
    tables.open_table(host, club, variant="bao2")
    room = services.open_room(host, variant="bao2")
    assert list(Room.objects.values_list("table__kind", flat=True)) == ["friends"]
    assert Room.objects.get().pk == room.pk
    # a friends' table cannot be made inside a club
    with pytest.raises(MatchError):
        tables.open_table(host, club, kind="friends", variant="bao2")
    outsider = make_user("outsider")
    with pytest.raises(FriendsError):
        services.join_by_code(outsider, "000000" if room.code != "000000" else "111111", "1.2.3.4")


def test_a_room_that_never_starts_loses_its_code_after_a_day(people):
    from datetime import timedelta

    import time_machine
    from django.utils import timezone

    host, (a, *_) = people["host"], people["friends"]
    room = services.open_room(host, variant="bao2")
    with time_machine.travel(timezone.now() + timedelta(hours=23), tick=False):
        assert services.release_ended_codes() == 0
    with time_machine.travel(timezone.now() + timedelta(hours=25), tick=False):
        with pytest.raises(FriendsError) as refused:
            services.join_by_code(a, room.code, "10.0.0.1")
        assert refused.value.code == "bad_code"
    assert Room.objects.get(pk=room.pk).code is None
    # the link still lets a friend in: it was handed on on purpose, and is unguessable
    assert services.join_by_link(a, room.token) == room.table


@override_settings(FRIENDS_WAITING_ROOMS_MAX=2)
def test_a_host_has_a_few_rooms_waiting_at_most(people):
    host = people["host"]
    first = services.open_room(host, variant="bao2")
    services.open_room(host, variant="bao2")
    with translation.override("zh-hans"), pytest.raises(FriendsError) as refused:
        services.open_room(host, variant="bao2")
    assert refused.value.code == "too_many_rooms" and "好友房在等人" in refused.value.message
    assert Room.objects.count() == 2
    # one of them ends: a new one may be opened
    Table.objects.filter(pk=first.table_id).update(status=TableStatus.CLOSED)
    services.open_room(host, variant="guandan")
