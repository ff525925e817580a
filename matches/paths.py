"""Where each API is served: the answer API's path, and each dialect's first part with the
module that serves it (matches/dialects/). Read by the dialects' routes and 404s, by
admission (which answers every path of an API in JSON) and by the metrics (which count
each kind apart). Imports nothing: any module may read it."""

API = "/api/"
DIALECTS = {"/v1/": "kakomimasu_v1", "/procon30/": "procon30", "/procon2020/": "procon30",
            "/procon31/": "procon31"}
DIALECT_PREFIXES = tuple(DIALECTS)
