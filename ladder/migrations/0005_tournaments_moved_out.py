"""The tournament models leave ``ladder`` for the ``tournaments`` app: state only, so their
tables and rows stay (``tournaments.0001_initial`` takes them over)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('ladder', '0004_red_two_tournaments'),
        ('tournaments', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
            migrations.RemoveField(
                model_name='game',
                name='round',
            ),
            migrations.RemoveField(
                model_name='game',
                name='sheet',
            ),
            migrations.RemoveField(
                model_name='game',
                name='table',
            ),
            migrations.RemoveField(
                model_name='round',
                name='tournament',
            ),
            migrations.RemoveField(
                model_name='tournament',
                name='club',
            ),
            migrations.RemoveField(
                model_name='tournament',
                name='created_by',
            ),
            migrations.RemoveField(
                model_name='tournamentnotice',
                name='tournament',
            ),
            migrations.RemoveField(
                model_name='tournamentnotice',
                name='user',
            ),
            migrations.DeleteModel(
                name='Entry',
            ),
            migrations.DeleteModel(
                name='Game',
            ),
            migrations.DeleteModel(
                name='Round',
            ),
            migrations.DeleteModel(
                name='Tournament',
            ),
            migrations.DeleteModel(
                name='TournamentNotice',
            ),
            ],
            database_operations=[],
        ),
    ]
