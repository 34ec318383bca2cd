"""The tournament models, moved from ``ladder`` without touching the database.

State only (``SeparateDatabaseAndState``): the tables ``ladder_tournament``, ``ladder_entry``,
``ladder_round``, ``ladder_game`` and ``ladder_tournamentnotice`` and their rows stay as they
are; the models' content types (and so their permissions) move to this app.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


MODELS = ["tournament", "entry", "round", "game", "tournamentnotice"]


def _move_content_types(apps, schema_editor, source="ladder", target="tournaments"):
    """Keep the models' content types (and the permissions that point at them)."""
    content_type = apps.get_model("contenttypes", "ContentType")
    taken = set(
        content_type.objects.filter(app_label=target, model__in=MODELS).values_list(
            "model", flat=True
        )
    )
    content_type.objects.filter(app_label=source, model__in=MODELS).exclude(
        model__in=taken
    ).update(app_label=target)


def _move_content_types_back(apps, schema_editor):
    _move_content_types(apps, schema_editor, source="tournaments", target="ladder")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('ladder', '0004_red_two_tournaments'),
        ('clubs', '0002_user_name_trigram_indexes'),
        ('matches', '0003_match_revision'),
        ('sheets', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
            migrations.CreateModel(
                name='Tournament',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(max_length=120, verbose_name='name')),
                    ('description', models.TextField(blank=True, verbose_name='description')),
                    ('variant', models.CharField(choices=[('bao2', 'Bao 2'), ('guandan', 'Guandan'), ('honger', 'Nanping Red Two'), ('shuangkou2', 'Two-player Shuangkou')], max_length=16, verbose_name='game')),
                    ('format', models.CharField(choices=[('swiss', 'Swiss'), ('round_robin', 'Round robin'), ('elimination', 'Single elimination')], default='swiss', max_length=12, verbose_name='format')),
                    ('unit_kind', models.CharField(choices=[('pair', 'Fixed pairs'), ('single', 'Single players'), ('individual', 'Individual (rotating partners)')], default='pair', max_length=12, verbose_name='entries')),
                    ('rounds_planned', models.PositiveSmallIntegerField(default=5, verbose_name='rounds')),
                    ('third_place', models.BooleanField(default=False, verbose_name='third-place game')),
                    ('rated', models.BooleanField(default=False, verbose_name='rated (feeds the club ladder)')),
                    ('online', models.BooleanField(default=True, verbose_name='played online')),
                    ('match_options', models.JSONField(blank=True, default=dict, verbose_name='match options')),
                    ('time_limit_minutes', models.PositiveIntegerField(default=0, verbose_name='match time limit (minutes)')),
                    ('tiebreaks', models.JSONField(blank=True, default=list, verbose_name='tie-breaks')),
                    ('points_win', models.PositiveSmallIntegerField(default=2, verbose_name='points for a win')),
                    ('points_draw', models.PositiveSmallIntegerField(default=1, verbose_name='points for a draw')),
                    ('registration_opens', models.DateTimeField(blank=True, null=True, verbose_name='registration opens')),
                    ('registration_closes', models.DateTimeField(blank=True, null=True, verbose_name='registration closes')),
                    ('checkin_required', models.BooleanField(default=True, verbose_name='check-in required')),
                    ('checkin_minutes', models.PositiveIntegerField(default=30, verbose_name='check-in opens (minutes before)')),
                    ('late_until_round', models.PositiveSmallIntegerField(default=0, verbose_name='late registration until round')),
                    ('starts_at', models.DateTimeField(verbose_name='starts at')),
                    ('round_minutes', models.PositiveIntegerField(default=60, verbose_name='minutes between rounds')),
                    ('start_when_ready', models.BooleanField(default=True, verbose_name='next round when all have finished')),
                    ('no_show_minutes', models.PositiveIntegerField(default=0, verbose_name='no-show forfeit after (minutes)')),
                    ('status', models.CharField(choices=[('draft', 'Draft'), ('scheduled', 'Scheduled'), ('running', 'Running'), ('paused', 'Paused'), ('finished', 'Finished'), ('cancelled', 'Cancelled')], default='draft', max_length=10, verbose_name='status')),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='created at')),
                    ('finished_at', models.DateTimeField(blank=True, null=True, verbose_name='finished at')),
                    ('club', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tournaments', to='clubs.club', verbose_name='club')),
                    ('created_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'verbose_name': 'tournament',
                    'verbose_name_plural': 'tournaments',
                    'db_table': 'ladder_tournament',
                    'ordering': ['-starts_at', '-id'],
                },
            ),
            migrations.CreateModel(
                name='Round',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('number', models.PositiveSmallIntegerField(verbose_name='round')),
                    ('scheduled_at', models.DateTimeField(verbose_name='scheduled at')),
                    ('status', models.CharField(choices=[('pending', 'Not paired yet'), ('paired', 'Paired'), ('playing', 'Playing'), ('finished', 'Finished')], default='pending', max_length=10, verbose_name='status')),
                    ('started_at', models.DateTimeField(blank=True, null=True, verbose_name='started at')),
                    ('finished_at', models.DateTimeField(blank=True, null=True, verbose_name='finished at')),
                    ('tournament', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rounds', to='tournaments.tournament')),
                ],
                options={
                    'verbose_name': 'round',
                    'verbose_name_plural': 'rounds',
                    'db_table': 'ladder_round',
                    'ordering': ['tournament', 'number'],
                },
            ),
            migrations.CreateModel(
                name='Entry',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(blank=True, max_length=120, verbose_name='name')),
                    ('team', models.CharField(blank=True, max_length=60, verbose_name='team')),
                    ('seed', models.PositiveIntegerField(default=0, verbose_name='seed')),
                    ('status', models.CharField(choices=[('registered', 'Registered'), ('checked_in', 'Checked in'), ('withdrawn', 'Withdrawn')], default='registered', max_length=12, verbose_name='status')),
                    ('registered_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='registered at')),
                    ('checked_in_at', models.DateTimeField(blank=True, null=True, verbose_name='checked in at')),
                    ('withdrawn_at', models.DateTimeField(blank=True, null=True, verbose_name='withdrawn at')),
                    ('player1', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tournament_entries', to=settings.AUTH_USER_MODEL, verbose_name='player')),
                    ('player2', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='partner')),
                    ('tournament', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='entries', to='tournaments.tournament', verbose_name='tournament')),
                ],
                options={
                    'verbose_name': 'entry',
                    'verbose_name_plural': 'entries',
                    'db_table': 'ladder_entry',
                    'ordering': ['tournament', 'seed', 'id'],
                },
            ),
            migrations.CreateModel(
                name='TournamentNotice',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('text', models.CharField(max_length=300)),
                    ('url', models.CharField(blank=True, max_length=200)),
                    ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ('read_at', models.DateTimeField(blank=True, null=True)),
                    ('tournament', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notices', to='tournaments.tournament')),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tournament_notices', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'ladder_tournamentnotice',
                    'ordering': ['-created_at', '-id'],
                },
            ),
            migrations.CreateModel(
                name='Game',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('number', models.PositiveSmallIntegerField(verbose_name='table number')),
                    ('side0', models.JSONField(default=list)),
                    ('side1', models.JSONField(default=list)),
                    ('notes', models.JSONField(blank=True, default=list)),
                    ('slot', models.PositiveSmallIntegerField(default=0)),
                    ('third_place', models.BooleanField(default=False)),
                    ('status', models.CharField(choices=[('pending', 'Not started'), ('playing', 'Playing'), ('finished', 'Finished'), ('bye', 'Bye')], default='pending', max_length=10, verbose_name='status')),
                    ('score0', models.IntegerField(blank=True, null=True)),
                    ('score1', models.IntegerField(blank=True, null=True)),
                    ('winner', models.SmallIntegerField(blank=True, null=True)),
                    ('seat_scores', models.JSONField(blank=True, default=list)),
                    ('seat_forfeits', models.JSONField(blank=True, default=list)),
                    ('source', models.CharField(blank=True, choices=[('', 'None yet'), ('live', 'Live match'), ('sheet', 'Score sheet'), ('admin', 'Entered by an organiser'), ('forfeit', 'Forfeit')], default='', max_length=8)),
                    ('finished_at', models.DateTimeField(blank=True, null=True)),
                    ('sheet', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='sheets.scoresheet')),
                    ('table', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='matches.table')),
                    ('round', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='games', to='tournaments.round')),
                ],
                options={
                    'verbose_name': 'game',
                    'verbose_name_plural': 'games',
                    'db_table': 'ladder_game',
                    'ordering': ['round', 'number'],
                    'constraints': [models.UniqueConstraint(fields=('round', 'number'), name='game_unique_number')],
                },
            ),
            migrations.AddIndex(
                model_name='tournament',
                index=models.Index(fields=['status', 'starts_at'], name='tournament_due'),
            ),
            migrations.AddConstraint(
                model_name='round',
                constraint=models.UniqueConstraint(fields=('tournament', 'number'), name='round_unique_number'),
            ),
            migrations.AddConstraint(
                model_name='entry',
                constraint=models.UniqueConstraint(fields=('tournament', 'player1'), name='tournament_entry_unique_player1'),
            ),
            migrations.AddIndex(
                model_name='tournamentnotice',
                index=models.Index(fields=['user', 'read_at'], name='tnotice_unread'),
            ),
            ],
            database_operations=[
                migrations.RunPython(_move_content_types, _move_content_types_back),
            ],
        ),
    ]
