"""A team signed in on its programs' page (/programs/, matches/views/programs.py): its
token, typed there once, is checked by the service that checks the API's and never
kept; the server's session keeps the token's digest and the team's name. The digest is
looked for again on every page, so that a token the judges replace signs its old
browsers out."""

from __future__ import annotations

from dataclasses import dataclass

from matches.models import Entrant, PracticeTeam, Team, token_hash

SESSION_PROGRAMS = "program_team"


@dataclass(frozen=True)
class ProgramTeam:
    by: str  # as the API's hand-ins say who handed a version in: "team:<digest>"
    name: str  # its programs are kept under its name


def program_team_keep(request, token: str, name: str) -> None:
    """Remember that this browser is the team of `token` (checked by the caller), under
    a new session key: a key planted before the sign-in is worth nothing after it."""
    request.session.cycle_key()
    request.session[SESSION_PROGRAMS] = {"digest": token_hash(token.strip()), "name": name}


def program_team_forget(request) -> None:
    request.session.pop(SESSION_PROGRAMS, None)


def program_team(request) -> ProgramTeam | None:
    """The team this browser signed in as on the programs' page, while its token holds."""
    kept = getattr(request, "session", {}).get(SESSION_PROGRAMS)
    if not isinstance(kept, dict) or not kept.get("digest"):
        return None
    digest, name = kept["digest"], kept.get("name", "")
    held = any(model.objects.filter(token_hash=digest, name=name).exists()
               for model in (Team, Entrant, PracticeTeam))
    return ProgramTeam(f"team:{digest[:32]}", name) if held else None
