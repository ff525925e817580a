"""Where each dialect is served: its path's first part and the module that serves it
(read by the dialects' routes and 404s, and by admission, which answers every path of
an API in JSON). Imports nothing: any module may read it."""

SERVED = {"/v1/": "kakomimasu_v1", "/procon30/": "procon30", "/procon2020/": "procon30",
          "/procon31/": "procon31"}
PREFIXES = tuple(SERVED)
