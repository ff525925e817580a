"""CSV downloads open in a spreadsheet as data: text never becomes a formula, numbers
stay numbers (the judges' export is tested with the audit, tests/views/test_audit.py)."""

import csv
import io

import pytest

from matches.models import Turn
from matches.views.spreadsheet import csv_attachment
from tests.views.test_published import imported

pytestmark = pytest.mark.django_db


def test_a_negative_score_stays_a_number_in_scores_csv(client):
    match = imported("kakomimasu/enclosure_ring")
    last = Turn.objects.get(match=match, number=match.resolved_turns)
    last.scores = [{key: -value - 1 for key, value in team.items()} for team in last.scores]
    last.save()
    text = client.get(f"/matches/{match.pk}/scores.csv").content.decode("utf-8-sig")
    header, *_, final = csv.reader(io.StringIO(text))
    # every cell there (the parts' order is the database's: PostgreSQL's jsonb sorts
    # keys), each a plain negative number: no quote, no apostrophe before it
    assert len(final) == len(header) == 1 + 2 * len(last.scores[0]) > 1
    assert dict(zip(header, final, strict=True)) == {
        "turn": str(last.number), **{f"{letter}_{part}": str(value)
                                     for letter, team in zip("AB", last.scores, strict=True)
                                     for part, value in team.items()}}
    assert all(int(cell) < 0 for cell in final[1:])


def test_only_text_is_quoted():
    response = csv_attachment(filename="t.csv", header=["n", "text", "plain"],
                              rows=[[-3, "-3", "go"], [2.5, "=1+1", ""], [None, "@x", "a=b"]])
    assert response.content.startswith(b"\xef\xbb\xbf")  # UTF-8 to Excel: no mojibake
    assert response.content.decode("utf-8-sig").splitlines() == [
        "n,text,plain", "-3,'-3,go", "2.5,'=1+1,", ",'@x,a=b"]
