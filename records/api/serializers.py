"""Serializers of the statistics API (the shapes, for the schema)."""

from __future__ import annotations

from rest_framework import serializers


class PersonSerializer(serializers.Serializer):
    """Matches with a partner or against an opponent."""

    user = serializers.IntegerField(allow_null=True)
    name = serializers.CharField(allow_null=True)
    matches = serializers.IntegerField()
    won = serializers.IntegerField()
    drawn = serializers.IntegerField()


class GameStatsSerializer(serializers.Serializer):
    """One game's statistics, rated or casual: every counter and the figures."""

    game = serializers.CharField()
    rated = serializers.BooleanField()
    counters = serializers.DictField(child=serializers.IntegerField())
    win_share = serializers.FloatField()
    per_deal = serializers.FloatField()
    seconds_per_decision = serializers.FloatField(allow_null=True)
    partners = PersonSerializer(many=True)
    opponents = PersonSerializer(many=True)


class StatisticsSerializer(serializers.Serializer):
    """A player's statistics over a period."""

    user = serializers.IntegerField()
    period = serializers.CharField()
    games = GameStatsSerializer(many=True)


class HonourSerializer(serializers.Serializer):
    """One honour of a club for a period."""

    code = serializers.CharField()
    title = serializers.CharField()
    explanation = serializers.CharField()
    period = serializers.CharField()
    user = serializers.IntegerField()
    partner = serializers.IntegerField(allow_null=True)
    value = serializers.FloatField()
    matches = serializers.IntegerField()


class ClubHonoursSerializer(serializers.Serializer):
    """A club's honours of this month and this season."""

    month = HonourSerializer(many=True)
    season = HonourSerializer(many=True)
