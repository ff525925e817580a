"""The index the answer API's rate limit counts a token's requests of the last second with."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0002_visibility_judges_and_imports"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(condition=models.Q(("entered_by", "")),
                               fields=["team", "received_at"], name="submission_team_recent"),
        ),
    ]
