# The two commands a new user runs: `make demo` and `make test`.
# Everything else here is what those two need, installed on first use.

SHELL := bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Python keeps what it compiles (__pycache__/, ignored by git), even where the machine
# asks it not to (PYTHONDONTWRITEBYTECODE, as on this one): otherwise each of the
# hundreds of processes the suite starts compiles Django, the project and pytest's
# rewritten tests again (a server's start 1.8 s instead of 1.5 s; collecting the tests
# 14 s instead of 7 s in each test process). The install compiles nothing: what is
# imported is compiled once, on first use (compiling every package at install, even on
# both cores at once, made a fresh clone's `make test` slower: 582 s against 550-567 s).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test lint bench install clean serve messages

demo: $(STAMP)
	$(PY) manage.py demo

# The whole suite on the embedded default (SQLite, in-memory channel layer), then again
# on PostgreSQL and Redis (which tests/databases.sh installs and starts) but for the
# tests whose outcome cannot depend on them (marked one_backend in tests/conftest.py);
# the API's fuzzing runs once, on PostgreSQL (marked once_on_postgres).
# JOBS processes share the work (pytest-xdist, a test file each at a time; each has its
# own test database and Redis database: tests/workers.py): `make test JOBS=1` runs one.
# Four on this machine's two cores: the tests wait for turns, pages and programs about
# as much as they compute (with two processes the cores were 70 % busy; three: each
# pass 11-17 % shorter, the cores 79 % busy on SQLite and 70 % on PostgreSQL, by
# vmstat; four: 95-100 % most of each pass, and the passes 237-266 s against 263-276 s
# on SQLite, 134-157 s against 160-172 s on PostgreSQL).
# Files are handed out in the order tests/conftest.py gives them, the long ones first
# (xdist would otherwise hand out the files of most tests first, and leave a process
# alone at the end with a browser file).
# Each pass ends with its 25 slowest tests, where the time goes.
# (Side by side, the two passes took 551-612 s here instead of 722; but in a fresh
# clone four test processes on two cores left servers over 30 s to start, and tests
# failed: so one after the other.)
JOBS ?= 4
PYTEST := $(PY) -m pytest --durations=25 $(if $(filter-out 1,$(JOBS)),-n $(JOBS) --dist loadfile --no-loadscope-reorder)
# Each run's processes count their /metrics numbers in a folder of the run's own.
test: export PROMETHEUS_MULTIPROC_DIR = $(CURDIR)/var/metrics-test
test: $(STAMP)
	$(VENV)/bin/ruff check .
	rm -rf var/metrics-test && mkdir -p var/metrics-test
	bash tests/databases.sh start
	trap 'bash tests/databases.sh stop' EXIT; \
	  echo "== embedded default: SQLite + in-memory channel layer" && \
	  $(PYTEST) -m "not once_on_postgres" && \
	  echo "== PostgreSQL + Redis" && \
	  env $$(bash tests/databases.sh env) $(PYTEST) -m "not one_backend"

# The venue layout on this machine: nginx on :8000 in front of N daphne processes
# (default 2: `make serve N=4`) and a turn clock, against PostgreSQL and Redis (those of
# DATABASE_URL and REDIS_URL, or private ones). Ctrl-C stops them all.
serve: $(STAMP)
	bash deploy/serve.sh $(N)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

# After changing words the pages or scripts show: the catalogues (locale/) gain the new
# msgids, to translate in locale/ja and locale/vi; then their .mo files are compiled
# (both are committed: the server needs no gettext). Needs Debian's gettext.
MESSAGES_IGNORED := --ignore=.venv --ignore=var --ignore=tests --ignore=bench --ignore=deploy \
	--ignore='.locale-test-*'
messages: $(STAMP)
	$(PY) manage.py makemessages -d django -l ja -l vi --no-obsolete --add-location=file $(MESSAGES_IGNORED)
	$(PY) manage.py makemessages -d djangojs -l ja -l vi --no-obsolete --add-location=file $(MESSAGES_IGNORED)
	$(PY) manage.py compilemessages --ignore=.venv

bench: $(STAMP)
	$(PY) bench/rules.py

install: $(STAMP)

# A virtual environment with the project and its test tools. Debian ships venv
# support as a separate package (python3-venv): install it when it is missing.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11 or newer is needed"'
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
	  echo "Installing Debian's python3-venv (needed to create $(VENV))"; \
	  rm -rf $(VENV); \
	  $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q python3-venv && \
	  $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -e '.[test]'
	@touch $(STAMP)

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .hypothesis
