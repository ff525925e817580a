# Match.closed meant "ended before its last turn" in some places and "over" in others:
# named for the one it is (issue 46).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0026_ladder_rating_is_mu'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='match',
            name='match_unfinished_start',
        ),
        migrations.RenameField(
            model_name='match',
            old_name='closed',
            new_name='ended_early',
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(condition=models.Q(('ended_early', False), ('resolved_turns__lt', models.F('turns'))), fields=['start_at'], name='match_unfinished_start'),
        ),
    ]
