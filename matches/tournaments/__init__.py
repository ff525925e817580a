"""Tournaments. Pure (no Django): `pairing.py` (who meets whom) and `standings.py` (the
table and its tie-breaks). On the database: `fixtures.py` (a round's fixtures as rows),
`runner.py` (the schedule, which writes as the clock runs it), `services.py` (creating
one, the judges' acts; above the runner, which it tells), `table.py` (what pages,
downloads and the API read) and `api.py`; the models are in `matches/models/`."""
