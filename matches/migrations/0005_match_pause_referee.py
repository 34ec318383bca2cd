from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0004_scoresheets_moved_to_sheets"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="pause",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="matchevent",
            name="actor",
            field=models.CharField(
                choices=[
                    ("player", "Player"),
                    ("bot", "Bot"),
                    ("auto", "Auto-play"),
                    ("clock", "Clock"),
                    ("system", "System"),
                    ("referee", "Referee"),
                ],
                max_length=8,
            ),
        ),
    ]
