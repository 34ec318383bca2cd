"""Serializers of the reviews API (the shapes, for the schema)."""

from __future__ import annotations

from rest_framework import serializers


class MomentSerializer(serializers.Serializer):
    """One of a seat's three costliest moments, in plain words in the caller's language."""

    step = serializers.IntegerField(help_text="The action's number in the match (replay step).")
    deal = serializers.IntegerField(help_text="The deal, from 1.")
    text = serializers.CharField()
    cost = serializers.FloatField()
    phase = serializers.ChoiceField(
        choices=["play", "tribute", "return", "immune", "choose"],
        help_text="The kind of decision: a play, a tribute (进贡), a return (还贡), Bao 2's "
        "immune window or Red Two's choice with both ♥2.",
    )
    phase_name = serializers.CharField(help_text="The kind of decision, in the caller's language.")


class DecisionSerializer(serializers.Serializer):
    """One reviewed decision: the move played, the strong bot's, and the difference (the
    played move minus the bot's) as mean and standard error over the sampled deals."""

    step = serializers.IntegerField()
    deal_no = serializers.IntegerField()
    phase = serializers.ChoiceField(
        choices=["play", "tribute", "return", "immune", "choose"],
        help_text="The kind of decision (see MomentSerializer.phase).",
    )
    phase_name = serializers.CharField(help_text="The kind of decision, in the caller's language.")
    played = serializers.DictField(
        help_text="kind (play, pass, tribute, return, immune, choose), cards, a play's type "
        "and key, Red Two's choice."
    )
    best = serializers.DictField()
    played_text = serializers.CharField(help_text="The move played, in the caller's language.")
    best_text = serializers.CharField(help_text="The bot's move, in the caller's language.")
    same = serializers.BooleanField()
    levels = serializers.FloatField(required=False)
    levels_se = serializers.FloatField(required=False)
    win = serializers.FloatField(required=False)
    win_se = serializers.FloatField(required=False)
    points = serializers.FloatField(required=False)
    points_se = serializers.FloatField(required=False)
    worlds = serializers.IntegerField(required=False)


class SeatReviewSerializer(serializers.Serializer):
    """One reviewed seat: its summary and moments; every decision only on the caller's seat."""

    seat = serializers.IntegerField()
    name = serializers.CharField()
    mine = serializers.BooleanField()
    reviewed = serializers.IntegerField()
    agreed = serializers.IntegerField()
    highlights = MomentSerializer(many=True)
    decisions = DecisionSerializer(many=True, allow_null=True)


class MatchReviewSerializer(serializers.Serializer):
    """A finished match's review: ``running`` (come back later), ``failed``, ``off`` (the
    club keeps reviews off, or a game the strong bot does not play), or ``done``."""

    table = serializers.IntegerField()
    match = serializers.IntegerField()
    game = serializers.CharField()
    status = serializers.ChoiceField(choices=["done", "running", "failed", "off"])
    complete = serializers.BooleanField(required=False)
    cpu_ms = serializers.FloatField(required=False)
    seats = SeatReviewSerializer(many=True, required=False)
