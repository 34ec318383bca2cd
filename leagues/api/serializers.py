"""Serializers of the league API (:mod:`leagues.api.views`): the shapes it reads and answers."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from clubs.models import Club
from leagues.models import Division, Entry, Fixture, League, LineUp, Season, Tiebreak
from leagues.services.setup import SEASON_FIELDS


class Id(serializers.IntegerField):
    """A row id: a positive 64-bit integer (a larger one names nobody)."""

    def __init__(self, **kwargs: Any) -> None:
        """An integer from 1 to 2**63 - 1."""
        super().__init__(min_value=1, max_value=2**63 - 1, **kwargs)


class LeagueSerializer(serializers.ModelSerializer):
    """A league (``host`` and ``invited_clubs``: club ids)."""

    class Meta:
        model = League
        fields = ["id", "host", "name", "description", "inter_club", "promote", "relegate"]
        fields += ["invited_clubs", "created_at"]
        read_only_fields = ["id", "invited_clubs", "created_at"]


class LeagueDivisionSerializer(serializers.ModelSerializer):
    """A division of a season (level 1 is the top)."""

    class Meta:
        model = Division
        fields = ["id", "name", "level"]


@extend_schema_field(
    {
        "type": "string",
        "pattern": "^({})?$".format("|".join(Tiebreak.values)),
        "description": "A tie-break after match points (blank: none).",
    }
)
class TiebreakField(serializers.ChoiceField):
    """A tie-break name (blank: none). Its schema is a pattern, not an enum: the three
    tie-break fields share one choice set, which the schema would otherwise name thrice."""


class LeagueSeasonSerializer(serializers.ModelSerializer):
    """A season and its settings."""

    divisions = LeagueDivisionSerializer(many=True, read_only=True)
    tiebreak1 = TiebreakField(choices=Tiebreak.choices, required=False)
    tiebreak2 = TiebreakField(choices=Tiebreak.choices, required=False, allow_blank=True)
    tiebreak3 = TiebreakField(choices=Tiebreak.choices, required=False, allow_blank=True)

    class Meta:
        model = Season
        fields = ["id", "league", "status", "divisions", *SEASON_FIELDS]
        read_only_fields = ["id", "status", "divisions"]


class LeagueEntrySerializer(serializers.ModelSerializer):
    """An entry: its club, division, team (with captain and roster) or players."""

    captain = serializers.IntegerField(source="team.captain_id", allow_null=True, default=None)
    roster = serializers.SerializerMethodField()

    class Meta:
        model = Entry
        fields = ["id", "name", "club", "division", "team", "captain", "roster"]
        fields += ["player1", "player2", "joined_round", "withdrawn_at", "answer_by"]
        read_only_fields = fields

    def get_roster(self, entry: Entry) -> list[int]:
        """The team's players' user ids (empty for pairs and singles)."""
        if not entry.team_id:
            return []
        return list(entry.team.members.values_list("user_id", flat=True))


class LeagueFixtureSerializer(serializers.ModelSerializer):
    """A fixture: round, division, entries, its time and result."""

    round = serializers.IntegerField(source="round.number")

    class Meta:
        model = Fixture
        fields = ["id", "round", "division", "home", "away", "status", "proposed_at"]
        fields += ["proposed_by", "agreed_at", "extended_to", "home_score", "away_score"]
        fields += ["winner", "source"]
        read_only_fields = fields


class LeagueLineUpSerializer(serializers.Serializer):
    """A line-up the caller may read: the entry and its pairs by table."""

    entry = serializers.IntegerField(source="entry_id")
    pairs = serializers.SerializerMethodField()

    def get_pairs(self, lineup: LineUp) -> list[list[int]]:
        """``[[player1, player2], ...]`` from table 1."""
        return [[p.player1_id, p.player2_id] for p in lineup.pairs.all()]


class LeagueRowSerializer(serializers.Serializer):
    """A line of the standings."""

    place = serializers.IntegerField()
    entry = serializers.IntegerField(source="unit")
    played = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    byes = serializers.IntegerField()
    values = serializers.DictField(child=serializers.FloatField())


class LeagueTeamEntrySerializer(serializers.Serializer):
    """A team (``name``, ``captain``, ``players``) or, in a pair / single season, only
    ``players``; user ids of the club's members."""

    club = serializers.PrimaryKeyRelatedField(queryset=Club.objects.all())
    division = Id(required=False)
    name = serializers.CharField(max_length=60, required=False, default="")
    captain = Id(required=False)
    players = serializers.ListField(child=Id(), max_length=10)


class LeagueRosterSerializer(serializers.Serializer):
    """A team's new roster: the captain and the players (user ids of the club's members; the
    captain is on the roster whether listed or not)."""

    captain = Id(required=False)
    players = serializers.ListField(child=Id(), max_length=10)


class LeagueClubNightSerializer(serializers.Serializer):
    """A club night: the round's number and the time (ISO 8601 with its offset)."""

    round = serializers.IntegerField(min_value=1, max_value=80)
    when = serializers.DateTimeField()


class LeagueNextSeasonSerializer(serializers.Serializer):
    """The next season's name and first day."""

    name = serializers.CharField(max_length=120)
    starts_on = serializers.DateField()


class LeagueAnswerSerializer(serializers.Serializer):
    """Accept / decline a partner invitation: ``entry`` (a pending pair of the season), or by
    default the one naming the caller."""

    entry = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=2**31 - 1
    )


class LeagueTimeSerializer(serializers.Serializer):
    """A proposed time (ISO 8601 with its offset)."""

    when = serializers.DateTimeField()


class LeaguePairsSerializer(serializers.Serializer):
    """A line-up: one pair of user ids per table, table 1 first."""

    pairs = serializers.ListField(
        child=serializers.ListField(child=Id(), min_length=2, max_length=2),
        max_length=4,
    )


class LeagueTableScoreSerializer(serializers.Serializer):
    """An organiser's corrected table result (home side's view)."""

    table = serializers.IntegerField(min_value=1, max_value=4)
    home_score = serializers.IntegerField(min_value=0, max_value=100_000)
    away_score = serializers.IntegerField(min_value=0, max_value=100_000)
