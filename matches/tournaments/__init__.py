"""Tournaments. Pure (no Django): `pairing.py` (who meets whom) and `standings.py` (the
table and its tie-breaks). On the database: `services.py` (creating one, the judges'
acts), `runner.py` (the schedule, which writes as the clock runs it), `table.py` (what
pages, downloads and the API read) and `api.py`; the models are in `matches/models/`."""
