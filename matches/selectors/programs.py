"""What the programs' pages show (docs/programs.md, "The pages"): a team's hosted programs
(/programs/) or every team's (/control/programs/, the judges'), each with its versions
and their build logs, and the hosted runs of its matches, said in the page's language.
Who may see which is the views' to decide (a team sees its own only); nothing here
reads a version's files or its built folder."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django.db.models import F, Max, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils.translation import gettext, gettext_lazy

from matches.bots import bots_for, levels
from matches.hosting.languages import LANGUAGES
from matches.models import HostedRun, Match, Program, ProgramVersion
from matches.rules import GAME_CHOICES

VERSIONS_SHOWN = 20  # a program's latest versions on its team's page
VERSIONS_SHOWN_TO_JUDGES = 3  # each program's on the judges' list (one program: all 20)
RUNS_SHOWN = 30  # a program's latest hosted runs
PROGRAMS_SHOWN = 100  # on the judges' list, the latest handed in first
OPPONENTS_SHOWN = 200  # other teams' programs a scrimmage may be asked against

STATUS_WORDS = {
    ProgramVersion.BUILDING: gettext_lazy("building"),
    ProgramVersion.READY: gettext_lazy("ready"),
    ProgramVersion.FAILED: gettext_lazy("failed"),
}
RUN_WORDS = {
    HostedRun.QUEUED: gettext_lazy("queued"),
    HostedRun.PLAYING: gettext_lazy("playing"),
    HostedRun.DONE: gettext_lazy("done"),
}
OUTCOME_WORDS = {
    "won": gettext_lazy("won"), "lost": gettext_lazy("lost"), "drawn": gettext_lazy("drawn"),
    "void": gettext_lazy("void"), "playing": gettext_lazy("under way"),
    "upcoming": gettext_lazy("starting soon"),
}
# How a run ended, as its worker says it (hosted/play.py, hosted/tasks.py, hosted/watch.py)
ENDED_WORDS = {
    "match over": gettext_lazy("the match was over"),
    "game over": gettext_lazy("the game was over"),
    "exited": gettext_lazy("the program exited"),
    "out of time": gettext_lazy("out of time: stopped after the match's last deadline"),
    "no show": gettext_lazy("the program never came to its seat"),
    "not ready": gettext_lazy("the program was not ready"),
    "its worker stopped": gettext_lazy("its worker stopped"),
    "match over before it started": gettext_lazy("the match was over before it started"),
    "the server failed": gettext_lazy("the server failed"),
}
WORKER_FAILED = "the worker failed: "  # and the error's name
LIMIT_SIGNALS = {"SIGKILL", "SIGXCPU", "SIGXFSZ"}  # a sandbox's limits end a process so
ENDED = re.compile(r"(?P<reason>[^(]+?)(?: \((?:exit (?P<code>-?\d+)|(?P<signal>SIG\w+))\))?")


def level_seats(game: str) -> list[int]:
    """The built-in levels a program of `game` may play a scrimmage against (none for a
    game played over its own protocol, whose levels are its server's)."""
    return list(range(1, len(levels(game)) + 1)) if bots_for(game) else []


def language_label(key: str) -> str:
    if key == "executable":
        return gettext("%(system)s executable") % {"system": "Linux x86-64"}
    language = LANGUAGES.get(key)
    return language.label if language is not None else key


def languages_offered() -> list[dict[str, Any]]:
    """The languages of the hand-in form: each with its main file, and whether this
    server has its tools (one it lacks is refused)."""
    return [{"key": key, "label": language_label(key), "entry": language.entry,
             "installed": key == "executable" or language.installed()}
            for key, language in LANGUAGES.items()]


def game_title(game: str) -> str:
    return gettext(dict(GAME_CHOICES).get(game, game))


def ended_words(ended_by: str) -> str:
    """How a run ended, in the page's language (as its worker said it where unknown)."""
    if ended_by.startswith(WORKER_FAILED):
        return gettext("its worker failed (%(error)s)") % {
            "error": ended_by.removeprefix(WORKER_FAILED)}
    found = ENDED.fullmatch(ended_by)
    if not found or found["reason"] not in ENDED_WORDS:
        return ended_by
    said = str(ENDED_WORDS[found["reason"]])
    if found["code"]:
        return gettext("%(how)s (exit code %(code)s)") % {"how": said, "code": found["code"]}
    if found["signal"] in LIMIT_SIGNALS:
        return gettext("%(how)s (%(signal)s: it reached a limit of its sandbox)") % {
            "how": said, "signal": found["signal"]}
    if found["signal"]:
        return gettext("%(how)s (ended by %(signal)s)") % {"how": said,
                                                           "signal": found["signal"]}
    return said


def team_programs(name: str, now: datetime) -> list[dict[str, Any]]:
    """A team's programs (by its name), each with its latest versions and hosted runs."""
    return programs_shown(list(Program.objects.filter(name=name).order_by("game")), now,
                          VERSIONS_SHOWN)


def every_program(now: datetime, program_id: int | None = None) -> list[dict[str, Any]]:
    """Every team's programs for the judges, latest handed in first (or one program,
    with all its versions shown)."""
    if program_id is not None:
        return programs_shown(list(Program.objects.filter(pk=program_id)), now, VERSIONS_SHOWN)
    programs = list(Program.objects.order_by("-created_at", "-pk")[:PROGRAMS_SHOWN])
    return programs_shown(programs, now, VERSIONS_SHOWN_TO_JUDGES)


def programs_shown(programs: list[Program], now: datetime, versions: int) -> list[dict[str, Any]]:
    """The programs, each with its latest `versions` versions and RUNS_SHOWN runs: a few
    queries for all of them, however many."""
    ids = [program.pk for program in programs]
    shown = _latest(ProgramVersion.objects.filter(program_id__in=ids).defer("source", "built"),
                    "program_id", "number", versions + 1)
    ready = dict(ProgramVersion.objects.filter(program_id__in=ids, status=ProgramVersion.READY)
                 .values("program_id").annotate(last=Max("number"))
                 .values_list("program_id", "last"))
    runs = _latest(HostedRun.objects.filter(version__program_id__in=ids)
                   .select_related("match", "version").prefetch_related("match__teams"),
                   "version__program_id", "match_id", RUNS_SHOWN)
    last = _last_games([run.match_id for rows in runs.values() for run in rows])
    return [{"program": program, "game_title": game_title(program.game),
             "versions": [_version(row) for row in shown.get(program.pk, [])[:versions]],
             "more_versions": len(shown.get(program.pk, [])) > versions,
             "ready": ready.get(program.pk),
             "runs": [_run(run, last.get(run.match_id, run.match), now)
                      for run in runs.get(program.pk, [])]}
            for program in programs]


def _latest(rows: QuerySet, group: str, by: str, count: int) -> dict[int, list]:
    """The `count` rows of each program (`group`: the path to its id) highest in `by`,
    highest first, in one query, by program."""
    ranked = rows.annotate(of=F(group), rank=Window(RowNumber(), partition_by=[F(group)],
                                                    order_by=F(by).desc()))
    grouped: dict[int, list] = {}
    for row in ranked.filter(rank__lte=count).order_by(group, f"-{by}"):
        grouped.setdefault(row.of, []).append(row)
    return grouped


def _version(version: ProgramVersion) -> dict[str, Any]:
    return {"number": version.number, "language": language_label(version.language),
            "filename": version.filename, "status": version.status,
            "status_words": STATUS_WORDS.get(version.status, version.status),
            "handed_in_at": version.handed_in_at, "built_at": version.built_at,
            "build_seconds": version.build_seconds, "build_log": version.build_log}


def _last_games(match_ids: list[int]) -> dict[int, Match]:
    """Each match's last game (itself, for a match of one game): its result is the
    match's."""
    last: dict[int, Match] = {}
    for game in Match.objects.filter(Q(pk__in=match_ids) | Q(first_game_id__in=match_ids)) \
            .only("pk", "first_game_id", "result", "start_at").order_by("pk"):
        last[game.first_game_id or game.pk] = game
    return last


def _run(run: HostedRun, last: Match, now: datetime) -> dict[str, Any]:
    teams = {team.index: _team_words(team.name, team.seat) for team in run.match.teams.all()}
    outcome = _outcome(run.team_index, last, run.match, now)
    return {"match": run.match, "over": last.result is not None, "version": run.version.number,
            "team": "AB"[run.team_index], "opponent": teams.get(1 - run.team_index, ""),
            "outcome": outcome, "outcome_words": OUTCOME_WORDS[outcome],
            "status": run.status, "status_words": RUN_WORDS.get(run.status, run.status),
            "started_at": run.started_at, "ended_at": run.ended_at,
            "ended_by": ended_words(run.ended_by) if run.ended_by else ""}


def _team_words(name: str, seat: str) -> str:
    """A team's name, or a built-in level's in the page's language."""
    level = seat.removeprefix("level-")
    return gettext("Built-in level %(level)s") % {"level": level} \
        if seat.startswith("level-") and level.isdigit() else name


def _outcome(index: int, last: Match, match: Match, now: datetime) -> str:
    result = last.result
    if result is None:
        return "upcoming" if now < match.start_at else "playing"
    if result.get("decided_by") == "void":
        return "void"
    winner = (result.get("match") or result).get("winner")
    return "drawn" if winner is None else "won" if winner == index else "lost"


def scrimmage_opponents(program: Program) -> list[tuple[str, str]]:
    """What a team's program may play a scrimmage against: another team's program of its
    game that has a built version, or one of the game's built-in levels."""
    others = Program.objects.filter(game=program.game, versions__status=ProgramVersion.READY) \
        .exclude(name=program.name).distinct().order_by("name")[:OPPONENTS_SHOWN]
    return [*((f"level-{level}", gettext("Built-in level %(level)s") % {"level": level})
              for level in level_seats(program.game)),
            *((f"program:{other.pk}", other.name) for other in others)]


def scrimmage_pair(choices: list[tuple[str, list[tuple[int, str]]]]) -> tuple[int, int] | None:
    """The judges' form's first choice: the first two programs of a game that has two."""
    return next(((rows[0][0], rows[1][0]) for _, rows in choices if len(rows) > 1), None)


def scrimmage_programs() -> list[tuple[str, list[tuple[int, str]]]]:
    """The judges' scrimmage form: every program with a built version, by game."""
    ready = Program.objects.filter(versions__status=ProgramVersion.READY).distinct() \
        .order_by("game", "name")[:PROGRAMS_SHOWN * 5]
    games: dict[str, list[tuple[int, str]]] = {}
    for program in ready:
        games.setdefault(program.game, []).append((program.pk, program.name))
    return [(game_title(game), rows) for game, rows in games.items()]
