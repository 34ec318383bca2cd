"""Serializers of the score-sheet API (:mod:`sheets.api.views`)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from games.variants import Variant
from sheets import services


class PlayerInSerializer(serializers.Serializer):
    """One seat: a club member's user id, or a guest's name."""

    user = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=services.MAX_ID
    )
    guest = serializers.CharField(required=False, allow_blank=True, max_length=60)


class OptionsSerializer(serializers.Serializer):
    """Game options the sheet may set (the engine checks them per game)."""

    colour_twos = serializers.BooleanField(required=False, help_text="Bao 2: red 2s count 2.")
    time_limit_minutes = serializers.IntegerField(
        required=False, min_value=0, max_value=600, help_text="Match clock; 0 for none."
    )
    deals = serializers.IntegerField(
        required=False, min_value=1, max_value=100, help_text="Red Two / Shuangkou: deals."
    )


class SheetCreateSerializer(serializers.Serializer):
    """Start a sheet: the club, the game, the players in seat order, options."""

    club = serializers.SlugField(help_text="The club's slug; you must be a member.")
    variant = serializers.ChoiceField(choices=Variant.choices)
    players = PlayerInSerializer(
        many=True, help_text="Seats in turn order; partners sit opposite (0+2 against 1+3)."
    )
    options = OptionsSerializer(required=False)
    rated = serializers.BooleanField(required=False, default=True)


class TwosSerializer(serializers.Serializer):
    """Natural 2s: how many, and how many of them red (♥2/♦2, counted under colour_twos)."""

    twos = serializers.IntegerField(min_value=0, max_value=8)
    red = serializers.IntegerField(min_value=0, max_value=4, required=False, default=0)


class DealOutcomeSerializer(serializers.Serializer):
    """A finished deal as seen at the table (see engine.match.TableMatch). Bao 2 / Guandan:
    finish (+ Bao 2: bao2, immune, twos_left, stuck_end). Red Two: mode, h2 / solo, receiver,
    finish, fans, dealt_fans. Shuangkou: winner, cards_left, bombs."""

    finish = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=3), required=False, max_length=4
    )
    bao2 = serializers.ListField(
        child=TwosSerializer(allow_null=True), required=False, min_length=2, max_length=2
    )
    immune = serializers.BooleanField(required=False)
    twos_left = serializers.ListField(
        child=TwosSerializer(allow_null=True), required=False, min_length=4, max_length=4
    )
    stuck_end = serializers.BooleanField(required=False)
    mode = serializers.ChoiceField(
        choices=["partnership", "solo", "surrender", "compare"], required=False
    )
    h2 = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=3), required=False, max_length=2
    )
    solo = serializers.IntegerField(min_value=0, max_value=3, required=False)
    receiver = serializers.IntegerField(min_value=0, max_value=3, required=False, allow_null=True)
    fans = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=40), required=False, max_length=4
    )
    dealt_fans = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=5), required=False, max_length=4
    )
    winner = serializers.IntegerField(min_value=0, max_value=1, required=False)
    cards_left = serializers.IntegerField(min_value=1, max_value=27, required=False)
    bombs = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=4, max_value=12)),
        required=False,
        max_length=2,
    )


class EntryInSerializer(serializers.Serializer):
    """One entry: exactly one of ``deal``, ``card`` (with ``team``, or ``seat`` in point games)
    or ``time_up``; ``key`` is a UUID made by the client (resending it adds nothing)."""

    key = serializers.UUIDField()
    deal = DealOutcomeSerializer(required=False)
    card = serializers.ChoiceField(choices=["yellow", "red", "forfeit"], required=False)
    team = serializers.IntegerField(min_value=0, max_value=1, required=False)
    seat = serializers.IntegerField(min_value=0, max_value=3, required=False)
    time_up = serializers.BooleanField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Exactly one kind of entry."""
        kinds = [k for k in ("deal", "card", "time_up") if attrs.get(k) not in (None, False)]
        if len(kinds) != 1:
            raise ValidationError(
                {"entry": [services.refusal_message("bad_entry")]}, code="bad_entry"
            )
        return attrs

    def engine_entry(self) -> dict[str, Any]:
        """The entry in the engine's form."""
        data = self.validated_data
        if "deal" in data and data["deal"] is not None:
            deal = dict(data["deal"])
            for name in ("bao2", "twos_left"):
                if name in deal:
                    deal[name] = [dict(x) if x is not None else None for x in deal[name]]
            return {"deal": deal}
        if data.get("card"):
            out: dict[str, Any] = {"card": data["card"]}
            out.update({k: data[k] for k in ("team", "seat") if k in data})
            return out
        return {"time_up": True}


class KeySerializer(serializers.Serializer):
    """An idempotency key (UUID made by the client)."""

    key = serializers.UUIDField()


class DisputeSerializer(serializers.Serializer):
    """Why the result is disputed."""

    reason = serializers.CharField(required=False, allow_blank=True, max_length=500)


class SheetSerializer(serializers.Serializer):
    """A sheet as the page shows it (see matches.scoresheet_selectors.sheet_json)."""

    id = serializers.IntegerField()
    club = serializers.CharField()
    variant = serializers.CharField()
    options = serializers.DictField()
    rated = serializers.BooleanField()
    status = serializers.CharField(help_text="playing, finished, confirmed, disputed, voided")
    status_display = serializers.CharField()
    version = serializers.IntegerField()
    scorer = serializers.CharField(allow_null=True)
    players = serializers.ListField(child=serializers.DictField())
    state = serializers.DictField(help_text="engine.match.TableMatch.state()")
    record = serializers.ListField(child=serializers.DictField())
    verdicts = serializers.ListField(child=serializers.DictField())
    now = serializers.DateTimeField(help_text="the server's time when it answered")
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    time_limit_seconds = serializers.IntegerField()
    ends_at = serializers.DateTimeField(allow_null=True)
    can = serializers.DictField(child=serializers.BooleanField())
    my_side = serializers.IntegerField(allow_null=True)


class EntryOutSerializer(serializers.Serializer):
    """The answer to an entry: whether it was new, its seq and the sheet after it."""

    created = serializers.BooleanField()
    seq = serializers.IntegerField()
    sheet = SheetSerializer()
