"""A protocol server's lines inserted as rows of the submissions' table, several in one
statement: where the server stores them before each answer (services/protocol.py), and
where a process's journal moves them with their turn (services/local_journal.py)."""

from __future__ import annotations

import functools
import json
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections

from matches.models import Submission

LINE_FIELDS = ("match", "team", "turn", "received_at", "remote_addr", "content_type", "body",
               "body_size", "body_sha256", "actions", "status_code", "error", "detail",
               "counted", "entered_by", "note", "dialect")
# Lines a statement inserts at most (17 values each: under SQLite's 32,766 and
# PostgreSQL's 65,535 parameters)
INSERTED_AT_ONCE = 500


def lines_insert(rows: list[tuple[Any, ...]]) -> list[int]:
    """Lines (local_journal.COLUMNS' values) inserted in the database in one statement
    (in the caller's transaction, if any); their ids, in order.

    A line's storing is on its game's path: the ORM's `create` took 0.2 ms of it,
    Django's cursor (its wrappers, its rewriting of the placeholders) 0.04 ms more than
    the insert itself. So the rows are inserted by the database driver's own cursor (on
    the connection Django opened for this thread), with the values a backend takes in a
    form of its own adapted as the ORM adapts them: the time, the address (by its field:
    an IPv6 one is normalised), the bytes, the actions (JSON; SQL's NULL when there are
    none)."""
    database = connections[DEFAULT_DB_ALIAS]
    database.ensure_connection()
    if database.vendor == "postgresql" and len(rows) > 1:
        return _unnested(database, rows)
    ops = database.ops
    ids: list[int] = []
    with database.wrap_database_errors:
        cursor = database.connection.cursor()
        for start in range(0, len(rows), INSERTED_AT_ONCE):
            chunk = rows[start:start + INSERTED_AT_ONCE]
            sql, address, actions_field = _lines_insert(database.vendor, len(chunk))
            values: list[Any] = []
            for (match, team, turn, at, remote, kind, body, size, sha, actions, status,
                 error, detail, entered_by, note) in chunk:
                values += (match, team, turn, ops.adapt_datetimefield_value(at),
                           address.get_db_prep_save(remote, database), kind,
                           database.Database.Binary(body), size, sha,
                           None if actions is None
                           else actions_field.get_db_prep_save(actions, database),
                           status, error, detail, False, entered_by, note, "")
            cursor.execute(sql, values)
            ids += [row[0] for row in cursor.fetchall()]
    return ids


# Each column's type in PostgreSQL's arrays, in LINE_FIELDS' order
_ARRAYS = ("bigint", "bigint", "integer", "timestamptz", "inet", "text", "bytea", "integer",
           "text", "jsonb", "integer", "text", "text", "boolean", "text", "text", "text")


def _unnested(database: Any, rows: list[tuple[Any, ...]]) -> list[int]:
    """Many lines into PostgreSQL at once (a batch a journal moves): one array a column,
    unnested into rows (as Django's bulk_create does there), whose statement's text does
    not grow with them. Their many values quoted into one statement's text took longer
    to write and to parse than to insert (2 ms a batch in psycopg's splitting of it)."""
    meta, quote = Submission._meta, database.ops.quote_name
    address = meta.get_field("remote_addr")
    columns: list[list[Any]] = [[] for _ in LINE_FIELDS]
    for (match, team, turn, at, remote, kind, body, size, sha, actions, status,
         error, detail, entered_by, note) in rows:
        for column, value in zip(columns, (
                match, team, turn, at, address.get_db_prep_save(remote, database), kind,
                body, size, sha, None if actions is None else json.dumps(actions), status,
                error, detail, False, entered_by, note, ""), strict=True):
            column.append(value)
    sql = (f"INSERT INTO {quote(meta.db_table)} "
           f"({', '.join(quote(meta.get_field(name).column) for name in LINE_FIELDS)}) "
           f"SELECT * FROM unnest({', '.join(f'%s::{kind}[]' for kind in _ARRAYS)}) "
           f"RETURNING {quote(meta.pk.column)}")
    with database.wrap_database_errors:
        cursor = database.connection.cursor()
        cursor.execute(sql, columns)
        return [row[0] for row in cursor.fetchall()]


@functools.lru_cache(maxsize=64)
def _lines_insert(vendor: str, count: int) -> tuple[str, Any, Any]:
    """The insert of `count` lines in the driver's own placeholders; the address's and
    actions' fields. (Its rows' ids come back in their order, as Django's bulk_create
    has them on both databases.)"""
    database = connections[DEFAULT_DB_ALIAS]
    meta, quote = Submission._meta, database.ops.quote_name
    fields = [meta.get_field(name) for name in LINE_FIELDS]
    columns = ", ".join(quote(field.column) for field in fields)
    mark = "?" if database.Database.paramstyle == "qmark" else "%s"
    marks = ", ".join([f"({', '.join([mark] * len(fields))})"] * count)
    return (f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES {marks} "
            f"RETURNING {quote(meta.pk.column)}",
            meta.get_field("remote_addr"), meta.get_field("actions"))



