"""Boards of imported records were named "imported-<hash>"; name them for people, as the
import now does: "<game> board W×H", then " #2", " #3" for other boards of that size."""

from django.db import migrations

from matches.rules import UnknownGame, rules_for


def name_imported_boards(apps, schema_editor):
    Board = apps.get_model("matches", "Board")
    taken = set(Board.objects.values_list("name", flat=True))
    for board in Board.objects.filter(name__startswith="imported-").order_by("id"):
        try:
            title = rules_for(board.game).title
        except UnknownGame:
            continue
        base = f"{title} board {board.width}×{board.height}"
        number, name = 1, base
        while name in taken:
            number += 1
            name = f"{base} #{number}"
        taken.discard(board.name)
        taken.add(name)
        board.name = name
        board.save(update_fields=["name"])


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0006_match_clock"),
    ]

    operations = [
        migrations.RunPython(name_imported_boards, migrations.RunPython.noop),
    ]
