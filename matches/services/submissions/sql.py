"""The plain SQL of the answer path: the lock of a match's row and the insert of every
request, the team's storage budget and a source's tally of the minute.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from django.db import connection

from matches.models import Match, RequestTally, Submission, Team

# The lock and the insert of every request, as two plain statements written once per
# process: the ORM's select_for_update().get() and create() cost about three times
# their CPU, and this path runs for both teams of every match at every deadline.
LOCKED = ("game", "turns", "strategy_ms", "transition_ms", "start_at", "resolved_turns",
          "ended_early", "clock_ms", "paused_at", "pause_reason", "credits", "practice_by",
          "fast_play")


def match_lock(match_id: int) -> Match:
    """The match's row, locked until the transaction ends (Match.DoesNotExist if gone):
    the fields that say whether and for which turn it takes actions."""
    with connection.cursor() as cursor:
        cursor.execute(statements()[0], [match_id])
        row = cursor.fetchone()
    if row is None:
        raise Match.DoesNotExist(f"there is no match {match_id}")
    fields = dict(zip(LOCKED, row, strict=True))
    for name in ("start_at", "paused_at"):
        if fields[name] is not None and getattr(fields[name], "tzinfo", None) is None:
            fields[name] = connection.ops.convert_datetimefield_value(  # SQLite's: text
                fields[name], None, connection)
    if isinstance(fields["credits"], str | bytes):  # a JSON column read raw
        fields["credits"] = json.loads(fields["credits"])
    return Match(pk=match_id, **fields | {"ended_early": bool(fields["ended_early"]),
                                          "fast_play": bool(fields["fast_play"])})


def submission_insert(**values: Any) -> None:
    """One Submission row; each value prepared by its model field, as the ORM would."""
    params = [Submission._meta.get_field(name).get_db_prep_save(values[name], connection)
              for name in INSERTED]
    with connection.cursor() as cursor:
        cursor.execute(statements()[1], params)


@functools.cache
def statements() -> tuple[str, str, str, str]:
    """The lock's, the insert's, the budget's and the tally's SQL. SQLite has no FOR
    UPDATE (a writing transaction holds the whole database); both take the tally's
    upsert with RETURNING."""
    quote = connection.ops.quote_name
    match_table, table = quote(Match._meta.db_table), quote(Submission._meta.db_table)
    columns = ", ".join(quote(Match._meta.get_field(name).column) for name in LOCKED)
    lock = f"SELECT {columns} FROM {match_table} WHERE {quote('id')} = %s" + (
        " FOR UPDATE" if connection.features.has_select_for_update else "")
    stored = [Submission._meta.get_field(name).column for name in INSERTED]
    insert = (f"INSERT INTO {table} ({', '.join(quote(c) for c in stored)}) "
              f"VALUES ({', '.join(['%s'] * len(stored))})")
    kept = quote("kept_bytes")
    budget = (f"UPDATE {quote(Team._meta.db_table)} SET {kept} = {kept} + %s "
              f"WHERE {quote('id')} = %s AND {kept} + %s <= %s")
    tallies = quote(RequestTally._meta.db_table)
    count, size = quote("count"), quote("body_bytes")
    tally = (f"INSERT INTO {tallies} ({quote('source')}, {quote('minute')}, "
             f"{quote('match_id')}, {quote('team_id')}, {count}, {size}, {quote('samples')}) "
             f"VALUES (%s, %s, %s, %s, 1, %s, '[]') "
             f"ON CONFLICT ({quote('source')}, {quote('minute')}) DO UPDATE SET "
             f"{count} = {tallies}.{count} + 1, {size} = {tallies}.{size} + excluded.{size} "
             f"RETURNING {count}")
    return lock, insert, budget, tally


INSERTED = ("match", "team", "turn", "received_at", "remote_addr", "content_type", "body",
            "body_size", "body_sha256", "actions", "status_code", "error", "detail", "counted",
            "entered_by", "note", "dialect", "client_offset_ms", "debug", "marks")
