"""Serializers of the tournament API (:mod:`tournaments.api.views`): the shapes it reads and
answers."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from clubs.models import Club, User
from games import endings
from tournaments import forms as settings_form
from tournaments import selectors
from tournaments.models import Entry, Tournament

SETTINGS_FIELDS = sorted(settings_form.EDITABLE)


class TournamentSerializer(serializers.ModelSerializer):
    """A tournament and its settings (``club`` is the club id; it cannot change). ``cuts``,
    the low-position elimination plan (第二十九条), is given as a list of ``{"after_round",
    "keep"}`` objects or as a text such as ``"3:12, 5:6"``, and answered as the list."""

    total_rounds = serializers.SerializerMethodField()
    previous_stage = serializers.PrimaryKeyRelatedField(
        read_only=True,
        help_text="The earlier stage whose ranking gave this one its entries (null: none).",
    )
    next_stage = serializers.SerializerMethodField(
        help_text="The stage made from this one's ranking (POST .../next-stage/; null: none)."
    )
    ending = serializers.SerializerMethodField(
        help_text="How matches end (第十四条): to_top (计局制), deals (计副制: match_options.deals), "
        "time (计时制: time_limit_minutes), time_deals (计时计副制). Derived from the deals and "
        "the match time; may be given when writing to have them checked against it."
    )
    duplicate = serializers.BooleanField(
        required=False,
        help_text="Duplicate event (复式赛): every table of a round is dealt the same cards and "
        "entries are ranked by comparing their results with those that held the same cards "
        "(GET .../duplicate/). Bao 2 and Guandan, online, Swiss or round robin; fixed once "
        "round 1 is paired.",
    )
    cycles = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=2,
        help_text="Round robin only: 1 a single round robin (单循环赛), 2 a double round robin "
        "(双循环赛, 第二十七条三) — every pairing played again after the first cycle, sides "
        "swapped (in a group round robin, within each group); twice the rounds. Fixed once "
        "round 1 is paired.",
    )
    cuts = serializers.JSONField(
        required=False,
        help_text='Swiss only: [{"after_round": 3, "keep": 12}, ...] or "3:12, 5:6": after '
        "round 3 only the best 12 entries play on. Rounds increase (before the last round), "
        "each cut keeps fewer (at least 2).",
    )

    class Meta:
        model = Tournament
        fields = [
            "id",
            "club",
            "status",
            "created_at",
            "finished_at",
            "total_rounds",
            "ending",
            "previous_stage",
            "next_stage",
        ] + SETTINGS_FIELDS
        read_only_fields = [
            "id",
            "status",
            "created_at",
            "finished_at",
            "total_rounds",
            "previous_stage",
        ]

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        """The club (read by its field) and the settings given, passed on unread: the service
        checks them in the one place settings are checked (:mod:`tournaments.forms`), so the
        API refuses them as the web form does, every problem at once and named by its label."""
        if not isinstance(data, dict):  # DRF's own (translated) refusal of a non-object
            message = self.error_messages["invalid"].format(datatype=type(data).__name__)
            raise serializers.ValidationError({"non_field_errors": [message]}, code="invalid")
        values: dict[str, Any] = {k: data[k] for k in SETTINGS_FIELDS if k in data}
        if "ending" in data:  # checked with the deals and the match time, not stored
            values["ending"] = data["ending"]
        if "club" in data or not self.partial:
            club_field = self.fields["club"]
            try:
                values["club"] = self.validate_club(club_field.run_validation(data.get("club")))
            except serializers.ValidationError as error:
                raise serializers.ValidationError({"club": error.detail}) from None
        return values

    def get_next_stage(self, obj: Tournament) -> int | None:
        """The id of the stage made from this one's ranking (null: none yet)."""
        stage = obj.next_stage
        return stage.pk if stage else None

    def get_ending(self, obj: Tournament) -> str:
        """The ending mode the deals and the match time make (:mod:`games.endings`)."""
        deals = (obj.match_options or {}).get("deals")
        return endings.ending_of(obj.variant, deals, obj.time_limit_minutes)

    def get_total_rounds(self, obj: Tournament) -> int:
        """How many rounds the tournament has."""
        return selectors.total_rounds(obj)

    def validate_club(self, club: Club) -> Club:
        """The club cannot change after creation."""
        if self.instance is not None and club.pk != self.instance.club_id:
            raise serializers.ValidationError("The club of a tournament cannot change.")
        return club


class EntrySerializer(serializers.ModelSerializer):
    """An entry: its players (user ids), team, seed and status."""

    class Meta:
        model = Entry
        fields = [
            "id",
            "name",
            "player1",
            "player2",
            "team",
            "seed",
            "status",
            "registered_at",
            "checked_in_at",
            "withdrawn_at",
            "eliminated_after_round",
            "answer_by",
        ]
        read_only_fields = fields


class NoteSerializer(serializers.Serializer):
    """Why a pairing broke a preference (code, entries concerned, numbers, sentence)."""

    code = serializers.CharField()
    units = serializers.ListField(child=serializers.IntegerField())
    detail = serializers.DictField()
    text = serializers.CharField()


class GameUnitSerializer(serializers.Serializer):
    """An entry on one side of a game."""

    entry = serializers.IntegerField()
    name = serializers.CharField()


class SeatSerializer(serializers.Serializer):
    """A player of a Nanping Red Two game, by seat, with their points and outcome once it has a
    result (None before)."""

    seat = serializers.IntegerField()
    entry = serializers.IntegerField()
    name = serializers.CharField()
    score = serializers.IntegerField(allow_null=True)
    outcome = serializers.CharField(allow_null=True)
    forfeit = serializers.BooleanField()


class BracketPlaceSerializer(serializers.Serializer):
    """Where a double elimination's game is: ``bracket`` (``W`` winners', ``L`` losers', ``F``
    final), ``stage`` (from 1) and ``index`` (from 0)."""

    bracket = serializers.CharField()
    stage = serializers.IntegerField()
    index = serializers.IntegerField()


class GameSerializer(serializers.Serializer):
    """A game of a round: sides, status, score, winner, source, table or sheet, notes; Red Two
    games also list their four ``seats`` (their ``score`` is null: each player has their own)."""

    id = serializers.IntegerField()
    round = serializers.IntegerField()
    number = serializers.IntegerField()
    sides = serializers.ListField(child=GameUnitSerializer(many=True))
    status = serializers.CharField()
    status_text = serializers.CharField()
    score = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    grades = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="Each side's 级分 in a national-rules event (null elsewhere).",
    )
    winner = serializers.IntegerField(allow_null=True)
    source = serializers.CharField()
    third_place = serializers.BooleanField()
    slot = serializers.IntegerField(help_text="Its place in an elimination bracket.")
    place = BracketPlaceSerializer(required=False)
    table = serializers.IntegerField(allow_null=True)
    sheet = serializers.IntegerField(allow_null=True)
    notes = NoteSerializer(many=True)
    seats = SeatSerializer(many=True, required=False)


class RoundSerializer(serializers.Serializer):
    """A round: number, time, status and (once paired) its games."""

    number = serializers.IntegerField()
    scheduled_at = serializers.DateTimeField()
    status = serializers.CharField()
    games = GameSerializer(many=True)


class WithdrawalSerializer(serializers.Serializer):
    """An entry's withdrawal after the start (第二十四条二): the round, the reason, the rule
    applied (``annulled``, ``stands``, ``swiss``, ``knockout``) and whether its results are
    annulled."""

    round = serializers.IntegerField()
    reason = serializers.CharField()
    rule = serializers.CharField()
    annulled = serializers.BooleanField()


class PlacingSerializer(serializers.Serializer):
    """A knockout entry's place band (tournaments.placings): ``first`` … ``last`` (equal for
    one place), ``label`` as printed (``3–4``) and ``in_play`` while the entry is still in
    (the band is then the places still open to it)."""

    first = serializers.IntegerField()
    last = serializers.IntegerField()
    label = serializers.CharField()
    in_play = serializers.BooleanField()


class StandingSerializer(serializers.Serializer):
    """A line of the standings with the value of each tie-break; ``withdrawal`` when the entry
    withdrew after the start. An entry whose results a withdrawal annulled comes after the
    ranked ones with ``place`` null."""

    place = serializers.IntegerField(allow_null=True)
    entry = serializers.IntegerField()
    name = serializers.CharField()
    played = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    byes = serializers.IntegerField()
    values = serializers.DictField(child=serializers.FloatField())
    withdrawal = WithdrawalSerializer(allow_null=True)
    eliminated_after_round = serializers.IntegerField(
        allow_null=True,
        help_text="The round after which a low-position cut put the entry out (第二十九条); "
        "null while it plays on. Such entries are listed below every entry still playing.",
    )
    placing = PlacingSerializer(
        allow_null=True,
        help_text="A knockout's place band from its bracket (single and double elimination): "
        "the lines are ranked by it, not by the games' numbers; null in other formats.",
    )


class GroupStandingsSerializer(serializers.Serializer):
    """One group of a group round robin (分组循环赛, 第二十七条一): its name (A, B, …) and its
    standings, ranked on the group's own games."""

    name = serializers.CharField()
    standings = StandingSerializer(many=True)


class NextStageSerializer(serializers.Serializer):
    """The next stage asked for: its format, how many go through (in a group round robin:
    from each group), a Swiss stage's rounds and a name (both optional). Checked by the
    service, every problem at once."""

    format = serializers.CharField(
        max_length=20,
        help_text="elimination, double_elim, swiss or round_robin",
    )
    qualifiers = serializers.IntegerField(
        min_value=1,
        max_value=64,
        help_text="The top N of the ranking (ties at the line broken by the standings' own "
        "order); in a group round robin the top N of each group, seeded A1, B1, …, A2, B2, ….",
    )
    rounds = serializers.IntegerField(
        required=False, min_value=1, max_value=30, help_text="A Swiss stage's rounds."
    )
    name = serializers.CharField(required=False, allow_blank=True, max_length=120)
    series = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=8,
        help_text="A single elimination's games per tie (第三十条): '' one game, sum2 / sum3 "
        "(2 or 3 games, grade points added up; national scoring), best3 / best5.",
    )
    cycles = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=2,
        help_text="A round-robin stage: 1 a single round robin (the default), 2 a double "
        "round robin (双循环赛, 第二十七条三).",
    )


class RegisterSerializer(serializers.Serializer):
    """Register: ``partner`` (pair events), ``player`` (organisers register someone else),
    ``team`` (individual events)."""

    partner = serializers.PrimaryKeyRelatedField(
        queryset=User.objects.all(), required=False, allow_null=True
    )
    player = serializers.PrimaryKeyRelatedField(
        queryset=User.objects.all(), required=False, allow_null=True
    )
    team = serializers.CharField(required=False, allow_blank=True, max_length=60, default="")


class EntryActionSerializer(serializers.Serializer):
    """Check in / withdraw: the caller's own entry, or ``entry`` (organisers). Accept / decline
    a partner invitation: the one naming the caller, or ``entry``."""

    entry = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=2**31 - 1
    )


class WithdrawSerializer(EntryActionSerializer):
    """Withdraw: the caller's own entry before round 1 is paired, else (organisers) ``entry``
    with the ``reason`` the withdrawal was accepted for (required after the start)."""

    reason = serializers.CharField(required=False, allow_blank=True, max_length=200, default="")


class EntryRefSerializer(serializers.Serializer):
    """An entry of the tournament, by id (organisers' actions on it)."""

    entry = serializers.IntegerField(min_value=1, max_value=2**31 - 1)


class SeedSerializer(EntryRefSerializer):
    """Move ``entry`` to place ``seed`` of the seeding order (1 is the first)."""

    seed = serializers.IntegerField(min_value=1, max_value=10_000)


class SwapSerializer(serializers.Serializer):
    """Swap two entries' places in a paired round before it starts."""

    first = serializers.IntegerField()
    second = serializers.IntegerField()


class ResultSerializer(serializers.Serializer):
    """A game's result: both scores; ``winner`` (0 / 1) decides a tie or a forfeit. Nanping
    Red Two games give ``seat_scores`` instead: each seat's points (seats as in the game's
    ``seats``), adding up to 0, and ``forfeits``, the seats that lost by forfeit."""

    score0 = serializers.IntegerField(min_value=-(10**6), max_value=10**6, required=False)
    score1 = serializers.IntegerField(min_value=-(10**6), max_value=10**6, required=False)
    winner = serializers.ChoiceField(choices=[0, 1], required=False, allow_null=True)
    seat_scores = serializers.ListField(
        child=serializers.IntegerField(min_value=-(10**6), max_value=10**6),
        min_length=4,
        max_length=4,
        required=False,
    )
    forfeits = serializers.ListField(
        child=serializers.ChoiceField(choices=[0, 1, 2, 3]), max_length=4, required=False
    )


class ForfeitSerializer(serializers.Serializer):
    """A forfeit ruled by the organiser (第十六条四): the side that forfeits and the level
    index each side had reached when the game stopped (0 = the lowest level)."""

    forfeiting = serializers.ChoiceField(choices=[0, 1])
    stop0 = serializers.IntegerField(min_value=0, max_value=23)
    stop1 = serializers.IntegerField(min_value=0, max_value=23)


class NoticeSerializer(serializers.Serializer):
    """An on-site notice: a round started, a bye, check-in open, a forfeit."""

    id = serializers.IntegerField()
    tournament = serializers.IntegerField(source="tournament_id")
    text = serializers.CharField()
    url = serializers.CharField()
    created_at = serializers.DateTimeField()
    read_at = serializers.DateTimeField(allow_null=True)


class ComparedRowSerializer(serializers.Serializer):
    """One table's entry (or the two players of an individual event's side) in one deal and
    direction of a duplicate round: its result in levels (its own direction's: the levels
    its side earned minus the other's) and the duplicate points it scored out of ``top``."""

    table = serializers.IntegerField()
    entries = GameUnitSerializer(many=True)
    result = serializers.IntegerField()
    points = serializers.IntegerField()
    top = serializers.IntegerField()


class ComparedDealSerializer(serializers.Serializer):
    """One deal number compared among the ``tables`` that finished it: ``directions[0]`` are
    the entries in seats 0 and 2 (side 1), ``directions[1]`` those in seats 1 and 3."""

    deal = serializers.IntegerField()
    top = serializers.IntegerField()
    tables = serializers.IntegerField()
    directions = serializers.ListField(child=ComparedRowSerializer(many=True))


class DuplicateRoundSerializer(serializers.Serializer):
    """A round of a duplicate event (复式赛): ``open`` is false (and ``deals`` empty) while a
    table of the round still plays."""

    round = serializers.IntegerField()
    open = serializers.BooleanField()
    deals = ComparedDealSerializer(many=True)
