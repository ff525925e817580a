"""A stranger's request (no token of its match) keeps only its first 256 bytes, so every
body gets its SHA-256; the per-address rate limit counts strangers' requests by an index."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0003_submission_rate_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="body_sha256",
            field=models.CharField(blank=True, max_length=64,
                                   help_text="SHA-256 of the body as read (its first 64 KiB)."),
        ),
        migrations.AlterField(
            model_name="submission",
            name="body",
            field=models.BinaryField(help_text="The raw body as received: at most 64 KiB of a "
                                               "team's own request, the first 256 bytes of any "
                                               "other."),
        ),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(condition=models.Q(("team", None)),
                               fields=["remote_addr", "received_at"],
                               name="submission_stranger_recent"),
        ),
    ]
