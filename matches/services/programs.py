"""Handing in a program and building it (docs/programs.md): a version is stored as it
came, then built once in the sandbox, and keeps its build's log; one that does not build
is refused with its log. Versions never change once built."""

from __future__ import annotations

import hashlib
import io
import logging
import os
import shlex
import tarfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path, PurePath
from typing import Any

from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone

from matches.access import team_by_authorization
from matches.hosting import sandbox
from matches.hosting.archives import ArchiveRefused, unpack
from matches.hosting.languages import (
    BUILD_LIMITS,
    BUILD_SECONDS,
    LANGUAGES,
    BuildRefused,
    language_of,
)
from matches.hosting.queue import enqueue
from matches.live.broadcast import summary_announce
from matches.models import (
    HostedRun,
    Match,
    PracticeTeam,
    Program,
    ProgramVersion,
    Team,
    token_hash,
)
from matches.rules import UnknownGame, rules_for
from matches.rules.checks import RecordError, team_names
from matches.rules.turns import is_alternating, is_protocol_played
from matches.selectors import match_games
from matches.services.boards import BoardError, ChosenBoard, board_choose, board_spec_fixed
from matches.services.clock import clock_wake
from matches.services.matches import (
    TEAM_NAME_LIMIT,
    Timing,
    TimingError,
    match_make,
    whole_second,
)
from matches.services.protocol import hosted_match_make

log = logging.getLogger(__name__)

SOURCE_LIMIT = 8 << 20  # a handed-in file or archive
BUILT_LIMIT = 64 << 20  # a built folder, packed
LOG_LIMIT = 64 << 10  # a build's log kept


@dataclass
class ProgramError(Exception):
    status: int
    code: str
    detail: str


def program_hand_in(*, game: str, name: str, language: str, filename: str, data: bytes,
                    by: str, now: datetime | None = None) -> ProgramVersion:
    """Store a new version of `name`'s program for `game` (made on its first version),
    to build (`program_build`). ProgramError for what cannot be taken."""
    now = now or timezone.now()
    try:
        rules_for(game)
    except (UnknownGame, TypeError):
        raise ProgramError(400, "bad_game", f"unknown game {game!r}") from None
    try:
        [name] = team_names([name], limit=TEAM_NAME_LIMIT, count=None)
    except RecordError as error:
        raise ProgramError(400, "bad_name", str(error)) from None
    try:
        chosen = language_of(language)
    except BuildRefused as error:
        raise ProgramError(400, "bad_language", str(error)) from None
    if not chosen.installed():
        raise ProgramError(400, "bad_language", f"{chosen.label} is not installed on this "
                                                "server (docs/programs.md, \"Languages\")")
    filename = PurePath(str(filename).replace("\\", "/")).name[:255]
    if not filename or filename in (".", ".."):
        raise ProgramError(400, "bad_file", "the file has no name")
    if any(ord(char) < 32 or ord(char) == 127 for char in filename):  # (NUL: PostgreSQL's
        raise ProgramError(400, "bad_file", "the file's name has control characters")  # 500)
    if not data:
        raise ProgramError(400, "bad_file", "the file is empty")
    if len(data) > SOURCE_LIMIT:
        raise ProgramError(413, "too_large", f"a program is at most {SOURCE_LIMIT >> 20} MiB "
                                             "as handed in")
    with transaction.atomic():
        program, _ = Program.objects.select_for_update().get_or_create(
            game=game, name=name, defaults={"created_at": now})
        last = program.versions.aggregate(last=Max("number"))["last"] or 0
        return ProgramVersion.objects.create(
            program=program, number=last + 1, language=chosen.key, filename=filename,
            source=data, sha256=hashlib.sha256(data).hexdigest(), handed_in_at=now,
            handed_in_by=by)


def program_build(version_id: int) -> ProgramVersion:
    """Build a version once (a second call finds it built): its files unpacked into a
    sandbox's folder, the language's build run there within the build's limits, and the
    built folder kept to play. The log says what was run and what it printed."""
    version = ProgramVersion.objects.select_related("program").get(pk=version_id)
    if version.status != ProgramVersion.BUILDING:
        return version
    language = LANGUAGES[version.language]
    began = timezone.now()
    lines: list[str] = []
    built: bytes | None = None
    with sandbox.workspace() as folder:
        try:
            names = unpack(bytes(version.source), version.filename, folder, language.entry)
            lines.append(f"{len(names)} file(s): {', '.join(names[:20])}"
                         + (" …" if len(names) > 20 else ""))
            command = language.build(folder)
        except (ArchiveRefused, BuildRefused) as error:
            lines.append(f"refused: {error}")
        else:
            ok = True
            if command is not None:
                sandbox.handed_over(folder)
                lines.append("$ " + shlex.join(command))
                ran = sandbox.run(command, folder, language.limits(BUILD_LIMITS),
                                  wall_seconds=BUILD_SECONDS)
                output = (ran.stdout + ran.stderr).decode("utf-8", "replace")
                if output:
                    lines.append(output.rstrip("\n"))
                ok = ran.returncode == 0
                lines.append(_verdict(ran))
            if ok:
                built = _packed(folder)
                if built is None:
                    lines.append(f"refused: the built program is larger than "
                                 f"{BUILT_LIMIT >> 20} MiB packed")
    status = ProgramVersion.READY if built is not None else ProgramVersion.FAILED
    text = "\n".join(lines)
    if len(text) > LOG_LIMIT:
        text = text[:LOG_LIMIT] + "\n… (the rest of the log is cut)"
    ended = timezone.now()
    ProgramVersion.objects.filter(pk=version.pk, status=ProgramVersion.BUILDING).update(
        status=status, build_log=text, built=built, built_at=ended,
        build_seconds=(ended - began).total_seconds())
    version.refresh_from_db()
    return version


def _verdict(ran: sandbox.Ran) -> str:
    if ran.timed_out:
        return f"build: stopped after {BUILD_SECONDS:g} s"
    if ran.signal:
        return f"build: ended by {ran.signal} (a limit: docs/programs.md)"
    return f"build: {'ok' if ran.returncode == 0 else f'failed (exit {ran.returncode})'} " \
           f"in {ran.seconds:.1f} s"


def _packed(folder: Path) -> bytes | None:
    """The built folder as a tar.gz (regular files and folders only), None if too large."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as archive:
        for root, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files):
                path = Path(root, name)
                if path.is_file() and not path.is_symlink():
                    archive.add(path, arcname=str(path.relative_to(folder)), recursive=False)
            if buffer.tell() > BUILT_LIMIT:
                return None
    return buffer.getvalue() if buffer.tell() <= BUILT_LIMIT else None


def program_unpacked(version: ProgramVersion, folder: Path) -> None:
    """Put a built version's folder into `folder` (a sandbox's, to play)."""
    with tarfile.open(fileobj=io.BytesIO(bytes(version.built)), mode="r:gz") as archive:
        archive.extractall(folder, filter="data")


SCRIMMAGE_START = timedelta(seconds=5)  # from its making to its first step (programs start)
# A fast scrimmage waits for its programs instead: it starts PROGRAMS_LEAD after the last
# of its runs is taken by a worker (`programs_taken`), and is void if none has taken
# them PROGRAMS_WAIT after its making (hosted/watch.py): its start says when that is.
PROGRAMS_WAIT = timedelta(minutes=10)
PROGRAMS_LEAD = timedelta(seconds=2)


def latest_ready(program: Program) -> ProgramVersion:
    """A program's latest version that built: what its scrimmages play."""
    version = program.versions.filter(status=ProgramVersion.READY).order_by("-number").first()
    if version is None:
        raise ProgramError(409, "not_built", f"{program.name}'s {program.game} program has no "
                                             "version that built")
    return version


def scrimmage_start(program_ids: tuple[int, int], *, board: str | None = None,
                    timing: Timing | None = None, now: datetime | None = None,
                    fast: bool = True, kind: str = "Scrimmage") -> Match:
    """A match between two programs' latest built versions, played by the workers
    (hosted runs, one a team), public live; its board `board` (a name, `random`; the
    game's default where none), its timing `timing` (checked as any match's). `fast`:
    fast play (Match.fast_play: a turn closes once both have answered), for nobody
    watching; else the timing holds to the second, as for a hall. `kind` begins its
    title ("Scrimmage", "Ladder")."""
    now, timing = now or timezone.now(), timing or Timing()
    found = Program.objects.in_bulk(program_ids)
    missing = [str(pk) for pk in program_ids if pk not in found]
    if missing:
        raise ProgramError(404, "no_program", f"no program {', '.join(missing)}")
    programs = [found[pk] for pk in program_ids]
    if programs[0].game != programs[1].game:
        raise ProgramError(400, "bad_game", "the two programs play different games "
                                            f"({programs[0].game}, {programs[1].game})")
    game = programs[0].game
    versions = [latest_ready(program) for program in programs]
    if is_protocol_played(rules_for(game)):
        return _served_scrimmage(game, programs, versions, board, timing, now, kind)
    chosen = scrimmage_board(game, board, timing)
    names = _names(programs)
    fast = fast and not is_alternating(rules_for(game))
    with transaction.atomic():
        made = match_make(game=game, team_names=names,
                          start_at=now + (PROGRAMS_WAIT if fast else SCRIMMAGE_START),
                          boards=[chosen], timing=timing, public_live=True,
                          title=f"{kind}: {names[0]} vs {names[1]}")
        if fast:
            Match.objects.filter(pk__in=[game.pk for game in made.games]).update(
                fast_play=True)
        for index, version in enumerate(versions):
            _seated(made.games, index, version)
    return Match.objects.get(pk=made.match.pk)


def scrimmage_board(game: str, board: str | None, timing: Timing) -> ChosenBoard:
    """A scrimmage's board (a name, `random`; none: the game's one board, or a random
    one) once its timing is checked as any match's; ProgramError 400 when either
    cannot be played."""
    try:
        timing.checked(rules_for(game))
        return board_choose(game, board if board is not None else
                            (None if board_spec_fixed(game) is not None else "random"))
    except (TimingError, BoardError) as error:
        raise ProgramError(400, "bad_request", str(error)) from None


def programs_taken(match_id: int, now: datetime) -> bool:
    """A worker took one of a match's runs: a fast one whose runs are all taken now
    starts PROGRAMS_LEAD from now (its later games as much earlier), instead of at the
    end of its wait. Whether it was moved."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        begins = whole_second(now + PROGRAMS_LEAD)
        if not match.fast_play or match.start_at <= begins or HostedRun.objects.filter(
                match_id=match_id, status=HostedRun.QUEUED).exists():
            return False
        Match.objects.filter(pk__in=[game.pk for game in match_games(match)]).update(
            start_at=F("start_at") + (begins - match.start_at))
        summary_announce(Match.objects.get(pk=match_id))
        transaction.on_commit(clock_wake, robust=True)
    return True


def _served_scrimmage(game: str, programs: list[Program], versions: list[ProgramVersion],
                      board: str | None, timing: Timing, now: datetime,
                      kind: str) -> Match:
    """A scrimmage of a game with its own protocol server (CHaser): its first game made
    ahead, and one job for both runs, whose worker serves the match's games too
    (protocol_servers/<game>/hosted.py)."""
    if timing.strategy_seconds or timing.transition_seconds or timing.clock_seconds:
        raise ProgramError(400, "bad_request", f"{rules_for(game).title} is played step by "
                                               "step as the programs answer: turns only")
    names = _names(programs)
    with transaction.atomic():
        try:
            match_id = hosted_match_make(
                game, names, board, timing.turns, start_at=now + SCRIMMAGE_START,
                title=f"{kind}: {names[0]} vs {names[1]}")
        except BoardError as error:
            raise ProgramError(400, "bad_request", str(error)) from None
        _served_seats(match_id, versions)
    return Match.objects.get(pk=match_id)


def served_fixture_start(game: str, names: list[str], program_ids: list[int], *,
                         board: str | None, turns: int | None, title: str,
                         title_parts: dict, public: bool, delay: int,
                         now: datetime) -> int:
    """A tournament's match of a game with its own protocol server between two hosted
    programs (their latest built versions, in the match's team order), served by the
    worker that plays it, as a scrimmage of it is; its first game's id. ProgramError
    when a program has no version that built."""
    versions = [latest_ready(Program.objects.get(pk=pk)) for pk in program_ids]
    with transaction.atomic():
        match_id = hosted_match_make(
            game, names, board, turns, start_at=now + SCRIMMAGE_START, title=title,
            title_parts=title_parts, public=public, delay=delay)
        _served_seats(match_id, versions)
    return match_id


def _served_seats(match_id: int, versions: list[ProgramVersion]) -> None:
    """Seat the versions at a served match's teams; one job plays both."""
    runs = []
    for index, version in enumerate(versions):
        Team.objects.filter(match_id=match_id, index=index).update(seat=f"program:{version.pk}")
        runs.append(HostedRun.objects.create(match_id=match_id, team_index=index,
                                             version=version))
    enqueue([runs[0].pk])  # (its worker plays both)


def _names(programs: list[Program]) -> list[str]:
    names = [program.name for program in programs]
    if names[0] == names[1]:
        names[1] += " (2)"
    return names


def _seated(games: list[Match], index: int, version: ProgramVersion) -> None:
    """Seat a version at team `index` of a match's games: a hosted run, handed to the
    workers once the caller's transaction commits."""
    Team.objects.filter(match__in=games, index=index).update(seat=f"program:{version.pk}")
    run = HostedRun.objects.create(match=games[0], team_index=index, version=version)
    enqueue([run.pk])


def hosted_seat(games: list[Match], index: int, program_id: int) -> None:
    """A tournament's match: its entrant's program (its latest built version) plays
    team `index` (tournaments/runner.py); its team then plays no match of it."""
    program = Program.objects.get(pk=program_id)
    try:
        version = latest_ready(program)
    except ProgramError:
        log.warning("%s has no built version: its team plays no move", program)
        return
    _seated(games, index, version)


def hosted_entrants_check(game: str, program_ids: list[int]) -> None:
    """ProgramError unless each is a program of `game` with a version that built."""
    found = Program.objects.in_bulk(program_ids)
    for pk in program_ids:
        if pk not in found:
            raise ProgramError(404, "no_program", f"no program {pk}")
        if found[pk].game != game:
            raise ProgramError(400, "bad_game", f"program {pk} plays {found[pk].game}")
        latest_ready(found[pk])


SAMPLES = Path(__file__).resolve().parent.parent / "hosting" / "samples"
SAMPLE_TEAMS = ("Sample A", "Sample B")


def samples_ready() -> dict[str, tuple[int, int]]:
    """The shipped sample programs (hosting/samples/<game>.py), handed in and built as
    two teams' programs for each game that has one (once: kept from then on): the
    programs' ids by game. The demo plays scrimmages between them."""
    ready = {}
    for path in sorted(SAMPLES.glob("*.py")):
        game = path.stem.replace("_", "-")
        try:
            rules_for(game)
        except UnknownGame:
            continue
        ids = []
        for name in SAMPLE_TEAMS:
            program = Program.objects.filter(game=game, name=name).first()
            if program is None or not program.versions.filter(
                    status=ProgramVersion.READY).exists():
                version = program_hand_in(game=game, name=name, language="python",
                                          filename=path.name, data=path.read_bytes(),
                                          by="judge:demo")
                program = program_build(version.pk).program
            ids.append(program.pk)
        ready[game] = (ids[0], ids[1])
    return ready


HAND_INS_AN_HOUR = 30  # versions a team may hand in an hour, built or not


def program_caller(authorization: str) -> tuple[str, str]:
    """Who hands in a program through the API: ("team:<token digest>", the team's name)
    for a token an organiser issued (a contest match's team, a tournament's, a practice
    team's). ProgramError 401 for none, for a token that is nobody's, and for one that a
    practice match or a hosted match gave (it plays that match only)."""
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ProgramError(401, "unauthorized", "send your team's token: Authorization: "
                                                "Bearer <token>")
    holder = team_by_authorization(authorization)
    if holder is None:
        holder = PracticeTeam.objects.filter(token_hash=token_hash(token.strip())).first()
    if holder is None:
        raise ProgramError(401, "unauthorized", "this token is no team's")
    if isinstance(holder, Team) and (holder.seat.startswith("program:") or Match.objects.filter(
            pk=holder.match_id).exclude(practice_by="").exists()):
        raise ProgramError(401, "unauthorized", "a token a practice or hosted match gave "
                                                "plays that match only: send your team's")
    return f"team:{token_hash(token.strip())[:32]}", holder.name


def hand_ins_check(name: str, now: datetime) -> None:
    """ProgramError 429 for a team that handed in HAND_INS_AN_HOUR versions this hour."""
    recent = ProgramVersion.objects.filter(program__name=name,
                                           handed_in_at__gt=now - timedelta(hours=1)).count()
    if recent >= HAND_INS_AN_HOUR:
        raise ProgramError(429, "too_many_programs", f"at most {HAND_INS_AN_HOUR} versions an "
                                                     "hour: try again later")


def program_shown(program: Program) -> dict[str, Any]:
    """A program and its versions, as its team and the judges see them (newest first)."""
    return {"id": program.pk, "game": program.game, "team": program.name,
            "versions": [{"number": version.number, "language": version.language,
                          "filename": version.filename, "status": version.status,
                          "handed_in_at": version.handed_in_at.isoformat(),
                          "built_at": version.built_at and version.built_at.isoformat(),
                          "build_log": version.build_log}
                         for version in program.versions.defer("source", "built")
                         .order_by("-number")]}
