"""Score sheets moved to the ``sheets`` app (``sheets.0001_initial``) with their tables: this
app's state forgets the models; the database keeps every table and row."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0003_match_revision'),
        ('sheets', '0001_initial'),
        ('ladder', '0005_tournaments_moved_out'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='SheetEntry'),
                migrations.DeleteModel(name='SheetPlayer'),
                migrations.DeleteModel(name='SheetVerdict'),
                migrations.DeleteModel(name='ScoreSheet'),
            ],
        ),
    ]
