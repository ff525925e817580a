"""The ladder is ordered by a standing's estimate μ (was the ordinal μ − 3σ): every stored
standing's `rating` becomes its μ (matches/selectors/ladder.py says why)."""

from django.db import migrations, models
from django.db.models import F


def rating_is_mu(apps, schema_editor):
    apps.get_model("matches", "LadderStanding").objects.update(rating=F("mu"))


def rating_is_ordinal(apps, schema_editor):
    apps.get_model("matches", "LadderStanding").objects.update(rating=F("mu") - 3 * F("sigma"))


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0025_match_title_parts"),
    ]

    operations = [
        migrations.AlterField(
            model_name="ladderstanding",
            name="rating",
            field=models.FloatField(help_text="The estimate μ, by which the ladder is ordered."),
        ),
        migrations.RunPython(rating_is_mu, rating_is_ordinal),
    ]
