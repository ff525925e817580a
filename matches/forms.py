"""Forms shared by the judges' pages and the admin."""

from __future__ import annotations

from django import forms

from matches.models import Match
from matches.rules.files import record_from_bytes
from matches.rules.records import RecordError
from matches.services.archive import match_import


class RecordImportForm(forms.Form):
    """A match record to import, through the `importrecord` command's service."""

    record = forms.FileField(help_text="A match-record/1 JSON file of any game, or a Blokus "
                                       "Duo game record (one move code a line).")
    publish = forms.BooleanField(required=False, help_text="Publish it at once; otherwise "
                                 "only the judges and its two teams may see it.")

    def imported(self) -> Match | None:
        """The match the valid upload became; None when the form or the record is refused
        (the record's one-line error on the form, nothing stored)."""
        if not self.is_valid():
            return None
        upload = self.cleaned_data["record"]
        try:
            return match_import(record_from_bytes(upload.read(), upload.name),
                                published=self.cleaned_data["publish"])
        except RecordError as error:
            self.add_error("record", f"{upload.name}: {error}")
            return None
