"""Serializers of the officials API: what a request may carry (bounded) and what the answers
hold."""

from __future__ import annotations

from rest_framework import serializers

from officials.models import (
    MAX_APPEAL_FEE,
    MAX_APPEAL_MINUTES,
    MIN_APPEAL_MINUTES,
    SUBJECT_MAX,
    TEXT_MAX,
    Appeal,
    AppealSubject,
    Audience,
    OfficialRole,
    Verdict,
)

#: The largest id a request may name (a PostgreSQL bigint).
ID_MAX = 2**63 - 1


class OfficialSerializer(serializers.Serializer):
    """An appointed official: ``current`` False once they left the club (no powers)."""

    id = serializers.IntegerField()
    user = serializers.IntegerField()
    name = serializers.CharField()
    role = serializers.ChoiceField(choices=OfficialRole.choices)
    current = serializers.BooleanField()


class AppealSerializer(serializers.ModelSerializer):
    """An appeal: its tournament game or league table (the other null), who filed it, what it
    asks, the result before and after (a league table: home, away), who decided it, when
    the committee's answer is due (``answer_by``, 第三十九条二.4; null while the fee is due),
    and its fee
    (第三十九条一.4: ``fee`` in whole yuan, 0 for none; ``fee_state`` none, due, received,
    refunded or kept; who marked it received and when; when it was settled)."""

    answer_by = serializers.DateTimeField(read_only=True, allow_null=True)

    class Meta:
        model = Appeal
        fields = [
            "id",
            "game",
            "table",
            "filed_by",
            "subject",
            "text",
            "filed_at",
            "status",
            "before0",
            "before1",
            "after0",
            "after1",
            "ruling",
            "ruling0",
            "ruling1",
            "ruling_reason",
            "ruled_at",
            "ruled_by",
            "escalated_at",
            "escalation_text",
            "decided_at",
            "decided_by",
            "escalated_by",
            "answer_by",
            "fee",
            "fee_state",
            "fee_received_at",
            "fee_received_by",
            "fee_settled_at",
        ]
        read_only_fields = fields


class VoteOutSerializer(serializers.Serializer):
    """A committee member's vote and its reason."""

    member = serializers.IntegerField()
    verdict = serializers.ChoiceField(choices=Verdict.choices)
    score0 = serializers.IntegerField(allow_null=True)
    score1 = serializers.IntegerField(allow_null=True)
    winner = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField()


class StepSerializer(serializers.Serializer):
    """One step of an appeal's history (:func:`officials.selectors.appeal_history`)."""

    at = serializers.DateTimeField()
    what = serializers.ChoiceField(
        choices=[
            "filed",
            "fee_received",
            "ruled",
            "escalated",
            "vote",
            "decided",
            "fee_refunded",
            "fee_kept",
        ]
    )
    by = serializers.IntegerField(allow_null=True)
    text = serializers.CharField()


class AppealDetailSerializer(AppealSerializer):
    """An appeal with the committee's votes and its history."""

    votes = VoteOutSerializer(many=True, read_only=True)
    history = StepSerializer(many=True, read_only=True)

    class Meta(AppealSerializer.Meta):
        fields = [*AppealSerializer.Meta.fields, "votes", "history"]
        read_only_fields = fields


class PanelSerializer(serializers.Serializer):
    """An event's officials, its appeal time and fee, and the appeals the caller reads."""

    appeal_minutes = serializers.IntegerField()
    appeal_fee = serializers.IntegerField()
    officials = OfficialSerializer(many=True)
    appeals = AppealSerializer(many=True)


class AppointSerializer(serializers.Serializer):
    """Appoint a member of the event's club."""

    user = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    role = serializers.ChoiceField(choices=OfficialRole.choices)


class DismissSerializer(serializers.Serializer):
    """Remove an official."""

    official = serializers.IntegerField(min_value=1, max_value=ID_MAX)


class MinutesSerializer(serializers.Serializer):
    """The time to appeal after a round ends."""

    appeal_minutes = serializers.IntegerField(
        min_value=MIN_APPEAL_MINUTES, max_value=MAX_APPEAL_MINUTES
    )


class FeeSerializer(serializers.Serializer):
    """The event's appeal fee in whole yuan (0: none)."""

    appeal_fee = serializers.IntegerField(min_value=0, max_value=MAX_APPEAL_FEE)


class AnnounceSerializer(serializers.Serializer):
    """An announcement to all entrants, a division (its id) or a team (id or label)."""

    audience = serializers.ChoiceField(choices=Audience.choices)
    target = serializers.CharField(max_length=60, required=False, allow_blank=True, default="")
    subject = serializers.CharField(max_length=SUBJECT_MAX)
    text = serializers.CharField(max_length=TEXT_MAX)


class AnnouncementSerializer(serializers.Serializer):
    """A sent announcement."""

    id = serializers.IntegerField()
    audience = serializers.ChoiceField(choices=Audience.choices)
    subject = serializers.CharField()
    recipients = serializers.IntegerField()


class FileAppealSerializer(serializers.Serializer):
    """A written appeal about one of the caller's games."""

    game = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    subject = serializers.ChoiceField(choices=AppealSubject.choices)
    text = serializers.CharField(max_length=TEXT_MAX)


class FileTableAppealSerializer(serializers.Serializer):
    """A written appeal about a league fixture's table the caller sat at."""

    table = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    subject = serializers.ChoiceField(choices=AppealSubject.choices)
    text = serializers.CharField(max_length=TEXT_MAX)


class EscalateSerializer(serializers.Serializer):
    """A player's written request that the committee decide against the chief referee's
    ruling."""

    text = serializers.CharField(max_length=TEXT_MAX)


class VoteSerializer(serializers.Serializer):
    """A committee member's vote, or the chief referee's ruling: dismiss, or uphold with the
    result they would set."""

    verdict = serializers.ChoiceField(choices=Verdict.choices)
    reason = serializers.CharField(max_length=TEXT_MAX)
    score0 = serializers.IntegerField(
        required=False, allow_null=True, min_value=-(10**6), max_value=10**6
    )
    score1 = serializers.IntegerField(
        required=False, allow_null=True, min_value=-(10**6), max_value=10**6
    )
    winner = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=1)
