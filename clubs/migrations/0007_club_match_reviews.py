from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("clubs", "0006_user_text_size"),
    ]

    operations = [
        migrations.AddField(
            model_name="club",
            name="match_reviews",
            field=models.BooleanField(db_default=True, default=True, verbose_name="match reviews"),
        ),
    ]
