"""Serializers of the ladder API (read-only: ratings change only through results)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework import serializers

from ladder.models import Ladder, Rating, RatingChange


class PlayerSerializer(serializers.ModelSerializer):
    """A player as the ladders show them: id and display name."""

    name = serializers.CharField(read_only=True)

    class Meta:
        model = get_user_model()
        fields = ["id", "name"]


class LadderSerializer(serializers.ModelSerializer):
    """A ladder: scope (``club`` is null for the platform ladder), game and rating parameters."""

    club_name = serializers.CharField(source="club.name", read_only=True, default=None)

    class Meta:
        model = Ladder
        fields = [
            "id",
            "club",
            "club_name",
            "variant",
            "initial_rating",
            "k_provisional",
            "k_established",
            "provisional_matches",
            "draw_multiplier",
            "activity_weeks",
        ]


class RatingSerializer(serializers.ModelSerializer):
    """A player's standing in a ladder. ``display`` is the rating as shown, with "?" while
    provisional; ``trend`` is the change over the last 10 matches."""

    user = PlayerSerializer(read_only=True)
    display = serializers.SerializerMethodField()
    win_rate = serializers.FloatField(read_only=True, allow_null=True)
    trend = serializers.FloatField(read_only=True)

    class Meta:
        model = Rating
        fields = [
            "ladder",
            "user",
            "rating",
            "display",
            "provisional",
            "matches",
            "wins",
            "draws",
            "win_rate",
            "trend",
            "last_played",
        ]

    def get_display(self, obj: Rating) -> str:
        """The rating rounded, with "?" while provisional."""
        return f"{round(obj.rating)}{'?' if obj.provisional else ''}"


class LeaderboardRowSerializer(RatingSerializer):
    """A leaderboard row: a rating with its rank (null in the ``all`` scope)."""

    rank = serializers.IntegerField(read_only=True, allow_null=True)

    class Meta(RatingSerializer.Meta):
        fields = ["rank", *RatingSerializer.Meta.fields]


class LeaderboardSerializer(serializers.Serializer):
    """One page of a leaderboard."""

    count = serializers.IntegerField(source="total")
    page = serializers.IntegerField()
    num_pages = serializers.IntegerField()
    page_size = serializers.IntegerField(source="per_page")
    scope = serializers.CharField()
    q = serializers.CharField(source="query")
    results = LeaderboardRowSerializer(many=True, source="rows")


class RatingChangeSerializer(serializers.ModelSerializer):
    """Why a rating moved after one result: ``after = before + k * multiplier * (score -
    expected)``."""

    delta = serializers.FloatField(read_only=True)
    scores = serializers.SerializerMethodField()

    class Meta:
        model = RatingChange
        fields = [
            "result",
            "ended_at",
            "side",
            "scores",
            "before",
            "after",
            "delta",
            "expected",
            "score",
            "k",
            "multiplier",
        ]

    def get_scores(self, obj: RatingChange) -> list[int]:
        """The final scores, the player's side first."""
        scores = obj.result.scores
        return [scores[obj.side], scores[1 - obj.side]]


class PlayerHistorySerializer(serializers.Serializer):
    """A player's rating in a ladder and every change, oldest first."""

    ladder = LadderSerializer()
    user = PlayerSerializer()
    rating = RatingSerializer(allow_null=True)
    history = RatingChangeSerializer(many=True)
