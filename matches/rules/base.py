"""The interface every game's rules implement, and the values they exchange.

A game's rules are a stateless object. The state is a plain immutable value, so a
turn can be resolved (and a whole match recomputed) without a database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from matches.rules import words
from matches.rules.reasons import Reason
from matches.rules.turns import SIMULTANEOUS

TEAM_LETTERS = ("A", "B")


# A team as reasons name it, as the API does: its index, then its letter (a screen may
# say the letter alone, as the hall knows a team).
# xgettext: no-python-brace-format
TEAM = Reason(words.gettext_noop("team {index} ({letter})"))


def team_named(index: int) -> str:
    """A team as reasons name it: "team 1 (B)"."""
    return TEAM(index=index, letter=TEAM_LETTERS[index])

def callout(text: str, team: int | None = None, at: Sequence[int] | None = None) -> dict[str, Any]:
    """One thing a turn did, in words, about a team and at a cell where it has them."""
    return {"text": text, "team": team, "at": list(at) if at is not None else None}


def collisions(state: Mapping[str, Any], target) -> list[tuple[float, dict[str, Any]]]:
    """Agents' actions that collided (`conflict`), where most did at one cell: "⚡ 3
    agents collided at (7, 1)", or, spread over the board, "⚡ 6 actions collided";
    nothing for the few a turn often has. `target(team, outcome)` is the cell an action
    aimed at."""
    at: dict[tuple[int, int], int] = {}
    for team, outcomes in enumerate(state.get("outcomes") or ()):
        for outcome in outcomes:
            if outcome.get("result") == "conflict":
                cell = target(team, outcome)
                if cell is not None:
                    at[cell] = at.get(cell, 0) + 1
    if not at:
        return []
    (x, y), most = max(at.items(), key=lambda item: (item[1], -item[0][1], -item[0][0]))
    total = sum(at.values())
    if most >= 3:
        # Translators: a turn's callout on the board, e.g. "⚡ 3 agents collided at (7, 1)"
        text = words.ngettext("⚡ %(count)s agent collided at (%(x)s, %(y)s)",
                              "⚡ %(count)s agents collided at (%(x)s, %(y)s)", most)
        return [(6.0 * most, callout(text % {"count": most, "x": x, "y": y}, None, (x, y)))]
    if total >= 6:
        # Translators: a turn's callout: actions collided all over, e.g. "⚡ 6 actions collided"
        text = words.ngettext("⚡ %(count)s action collided", "⚡ %(count)s actions collided",
                              total)
        return [(3.0 * total, callout(text % {"count": total}))]
    return []


# One turn's actions: one list per team, each a list of action objects as sent.
TurnActions = Sequence[Sequence[Mapping[str, Any]]]
# One turn's outcomes: per team, each action echoed with "result" (and "reason").
Outcomes = list[list[dict[str, Any]]]


class GameRules(Protocol):
    """What the registry hands out for a game id."""

    game: str
    # Outcome keys that must be equal (where both sides give them) for two timelines
    # to agree, beyond whether each action is "ok" (docs/formats.md).
    outcome_keys: tuple[str, ...]

    def parse_board(self, board: Mapping[str, Any]) -> dict[str, Any]:
        """The record's `board`, checked; raise `checks.RecordError` naming the field."""

    def check_agents(self, agents: Any, board: dict[str, Any]) -> int:
        """The record's `agents`, checked against the parsed board (`RecordError`)."""

    def initial_state(self, record: Any) -> Any:
        """The position before turn 1, from a parsed match record's board."""

    def resolve_turn(self, state: Any, actions: TurnActions) -> tuple[Any, Outcomes]:
        """Apply one turn's actions; return the next state and every action's outcome."""

    def view(self, state: Any) -> dict[str, Any]:
        """The timeline/1 fields of a state: turn, cells, agents, scores."""

    def action_problem(self, action: Any) -> str:
        """Why an action sent to the answer API is malformed for this game ("" if it is not)."""

    def action_fields(self, action: dict[str, Any]) -> dict[str, Any]:
        """The fields of a well-formed action that the match record keeps."""

    def is_over(self, state: Any, turns: int) -> bool:
        """Whether the match has ended after this state (turn limit or a decision)."""

    def result(self, state: Any) -> dict[str, Any]:
        """The final result of an ended match: {"winner": 0 | 1 | None, "decided_by"}."""


@dataclass(frozen=True)
class Ranking:
    """How a contest ranks a tournament's table (matches/tournaments/standings.py).

    `order`: the keys compared in turn, the higher first: "score" (the wins, and half a
    point a draw where `half_draws`), "wins", "draws", "fewer losses", or the name of one
    of the `tiebreaks`. `tiebreaks`: each tie-break shown beside the score, as its name
    and what it adds up: "solkoff" (the scores of all a team's opponents), "sb" (the
    scores of the opponents it beat), or a key of the fixtures' points (e.g. "total").
    """

    order: tuple[str, ...]
    tiebreaks: tuple[tuple[str, str], ...] = ()
    half_draws: bool = False


# The Procon contests' way, and the default: wins, then points over all fixtures.
WINS_THEN_POINTS = Ranking(order=("wins", "points"), tiebreaks=(("points", "total"),))


class Presentation:
    """What the screens, pictures and lists need to know of a game beyond its rules,
    with the defaults most games share. Each game's rules class inherits it and
    overrides what differs, so that no code outside `matches/rules/` names a game."""

    title: str  # the game's name as people know it, for lists and forms
    # The game in one line for a newcomer watching the TV: how it is scored, who wins.
    rule_line: str = ""
    public_boards: str | None = None  # a file of named public boards in matches/boards/
    live = False  # matches of it can be created and played live (bots, API, screens)
    # What `manage.py demo` plays of it: its public boards to play first (where shipped),
    # and whether the demo's tournament of bot teams is of this game (one game's is).
    demo_boards: tuple[str, ...] = ()
    demo_tournament = False
    # How its teams play (rules/turns.py): at once (the default), in turn, or over its
    # own protocol server.
    turn_kind = SIMULTANEOUS
    # The one board every match of it is played on (Blokus Duo's), or None: matches
    # choose theirs.
    fixed_board: Mapping[str, Any] | None = None
    headline_part = "total"  # the score part that is a team's one number on every list
    fewer_leads = False  # fewer of the headline part is better (squares left to place)
    # The keys of an action in the record's order, for the judges' audit (`said`).
    action_keys: tuple[str, ...] = ()
    # Outcome keys that are the judge's answer, not what the team said.
    answer_keys: tuple[str, ...] = ("result", "reason")
    # The replay marks turns with a big swing of the score and with many conflicts
    # (games whose agents act at once and can collide).
    replay_marks = False
    # `drawing_extras` reads every state so far (False: the last two are enough), so
    # that a picture of turn 900 reads two stored turns, not nine hundred.
    drawing_history = False

    def action_target(self, outcome: Mapping[str, Any],
                      agents: Sequence[Any]) -> tuple[int, int] | None:
        """The cell an action aimed at, where the game's actions aim at one (a failed
        one's mark on a picture, a collision's callout), from its outcome and its team's
        agents' positions before it; None for an action that aims nowhere or a game
        whose actions do not."""
        return None

    def random_board(self, seed: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """A generated match-record/1 board and suggested settings (`agents`, ...)."""
        raise ValueError(f"{self.title}: no random boards")

    def board_notes(self, board: Mapping[str, Any]) -> list[str]:
        """What the board editor says of a checked board (its symmetry, say), in words."""
        return []

    # --- the game's own board files (docs/formats.md, "The games' own files") -------

    def board_read(self, data: Mapping[str, Any]
                   ) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """A board in the file format this game's contest made (JSON read), not checked
        yet, and the settings the file suggests (`agents`, `turns`, `strategy_seconds`);
        None for data that is not in it, or a game that made no such format. A board of
        any game may come in any game's format: `matches.boards.specs` asks each."""
        return None

    def board_file(self, board: Mapping[str, Any], hints: Mapping[str, Any],
                   name: str) -> tuple[str, bytes] | None:
        """A checked board of this game in its contest's own file (docs/boards.md), with
        the suggested `turns` and `agents` where the format keeps them: the file's name
        and its bytes; None for a game whose boards are not kept in files."""
        return None

    # The replay's analysis of each position (`analysis`): its name in words, None for
    # a game that has none.
    analysis_name: str | None = None

    def analysis(self, state: Any) -> list[int]:
        """Each team's figure of a position (a rules state) for the replay's analysis
        chart (Blokus Duo: each team's legal moves)."""
        raise NotImplementedError

    def drawing_extras(self, board: Mapping[str, Any],
                       states: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """What a screen joining late cannot tell from the latest state alone (what it
        remembers of earlier turns: each turn's `drawing_news` so far), from the board
        and the timeline/1 states so far: nothing by default. (The last turn's marks
        are `last_turn`'s.)"""
        return {}

    def drawing_news(self, board: Mapping[str, Any], state: Mapping[str, Any]) -> dict[str, Any]:
        """What a state's turn adds to what a screen remembers of earlier turns (the
        `drawing_extras` a late screen is given at once), from the board and that state
        alone: nothing by default."""
        return {}

    # --- scores ---------------------------------------------------------------------

    def headline(self, scores: Sequence[Mapping[str, int]]) -> list[int]:
        """Each team's one number (its total, its squares left, its items)."""
        return [score[self.headline_part] for score in scores]

    def score_words(self, score: Mapping[str, int]) -> str:
        """The rest of a team's score in words, e.g. "wall 12 · territory 30"."""
        rest = [f"{words.part(part)} {words.number(value)}" for part, value in score.items()
                if part != self.headline_part]
        return " · ".join(rest) or words.part(self.headline_part)

    def leader(self, scores: Sequence[Mapping[str, int]],
               result: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Who leads and by how much of the headline: {"team": 0 | 1 | None, "margin"}.
        A final result decides the team (a game can be won by other means than the
        score); the margin is always the headline's difference."""
        lead = self.lead(scores, result)
        return {"team": lead["team"], "margin": lead["margin"]}

    def lead(self, scores: Sequence[Mapping[str, int]],
             result: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """`leader` plus `share`: team A's part (0 to 1) of the bar between the cards.
        The bar shows the headline difference against the sum of both sizes, so negative
        scores and counts that start high (squares left) still give a fair bar; a match
        won by other means than the headline (a player boxed in, the sums of a match's
        games where this game's numbers favour the loser) gives the winner all."""
        first, second = self.headline(scores)
        ahead = (second - first) if self.fewer_leads else (first - second)  # > 0: A ahead
        size = abs(first) + abs(second)
        share = 0.5 + 0.5 * ahead / size if size else 0.5
        team = None if ahead == 0 else 0 if ahead > 0 else 1
        if result is not None:
            winner = result.get("winner")
            knockout = result.get("decided_by") not in scores[0]
            # the other team ahead on these numbers: the win came from elsewhere (the
            # sums of a match's games, Procon 2020), and the ▲ and the bar say the same
            beaten = team is not None and winner != team
            if winner is not None and winner != team and (knockout or beaten):
                share = 1.0 if winner == 0 else 0.0
            team = winner
        return {"team": team, "margin": abs(first - second), "share": round(share, 4)}

    def swing(self, before: Sequence[Mapping[str, int]],
              after: Sequence[Mapping[str, int]]) -> dict[str, int] | None:
        """How a turn moved the headline's difference, as `lead` measures it (fewer
        squares left is better): {"team" (who gained), "points"}; None where it did not
        move. The one definition the replay's marks and the TV's biggest swing use."""
        (a0, b0), (a1, b1) = self.headline(before), self.headline(after)
        change = (a1 - b1) - (a0 - b0)
        change = -change if self.fewer_leads else change  # > 0: A gained
        return {"team": 0 if change > 0 else 1, "points": abs(change)} if change else None

    def swings(self, scores: Sequence[Sequence[Mapping[str, int]]]) -> list[Any]:
        """`swing` of each turn whose scores come after the first in `scores` (None
        for the first: nothing before it)."""
        return [None, *(self.swing(before, after)
                        for before, after in zip(scores, scores[1:], strict=False))]

    # --- the end of a match, in words -----------------------------------------------

    # Why a match ended when not by the scores (result's `decided_by`), after the winner:
    # "{loser} is boxed in" (msgids, said through `words.gettext`).
    endings: Mapping[str, str] = {}

    def answers_to(self, sent: str, name: str, short: str = "") -> bool:
        """Whether a program that called itself `sent` plays for the team `name` (short
        code `short`): the name or the short code, ignoring case and spaces round it."""
        return bool(sent.strip()) and sent.strip().casefold() in {
            form.strip().casefold() for form in (name, short)} - {""}

    def player(self, team: int, names: Sequence[str]) -> str:
        """A team as the end of a match names it (CHaser adds Cool or Hot)."""
        return names[team]

    def amount(self, value: int) -> str:
        """A number of the headline's unit: "34 points" (each game its own unit)."""
        return words.ngettext("%(count)s point", "%(count)s points", value) % {
            "count": words.number(value)}

    def unit_words(self) -> str:
        """The headline's unit where the lists write it under two numbers."""
        return words.gettext("points")

    def verdict(self, result: Mapping[str, Any], scores: Sequence[Mapping[str, int]],
                names: Sequence[str]) -> str:
        """The result in plain words: "Alpha wins by 34 points", "Beta wins on wall:
        120 points each", "Hot wins: Cool is boxed in", "A draw: 120 points each"."""
        _ = words.gettext
        first, second = self.headline(scores)
        winner, how = result.get("winner"), result.get("decided_by")
        if how == "void":  # matches/services/control.py: the judges' words, as they wrote them
            return _("Void by the judges: %(reason)s") % {"reason": result.get("reason", "")}
        if winner is None:
            if first == second:
                return _("A draw: %(amount)s each") % {"amount": self.amount(first)}
            ending = _(self.endings["draw"]) if "draw" in self.endings else _("neither wins")
            return _("A draw: %(ending)s") % {"ending": ending}
        name, loser = self.player(winner, names), self.player(1 - winner, names)
        if how == "time":  # any game on chess clocks (matches/rules/turns.py)
            return _("%(name)s wins: %(loser)s ran out of time") % {"name": name, "loser": loser}
        if how in self.endings:
            return _("%(name)s wins: %(ending)s") % {
                "name": name, "ending": _(self.endings[how]) % {"loser": loser}}
        if how == self.headline_part or first != second:
            return _("%(name)s wins by %(amount)s") % {
                "name": name, "amount": self.amount(abs(first - second))}
        return _("%(name)s wins on %(part)s: %(amount)s each") % {
            "name": name, "part": words.part(how), "amount": self.amount(first)}

    def match_verdict(self, result: Mapping[str, Any], names: Sequence[str]) -> str | None:
        """A match of wins decided by this game, in words: "Alpha wins the match 2–1"."""
        match = result.get("match")
        if not match or "wins" not in match:  # (a match of totals: its game says it)
            return None
        wins = match["wins"]
        if match["winner"] is None:
            return words.gettext("The match is drawn %(a)s–%(b)s") % {"a": wins[0], "b": wins[1]}
        winner = match["winner"]
        return words.gettext("%(name)s wins the match %(won)s–%(lost)s") % {
            "name": names[winner], "won": wins[winner], "lost": wins[1 - winner]}

    # --- matches of several games ----------------------------------------------------

    # The games a match of this game has when creatematch plans them ahead (Procon
    # 2020's two); a protocol server says how many it plays (CHaser's best of three).
    games_per_match = 1
    # The teams swap sides (who moves first) every game of a match: CHaser's Cool and Hot.
    sides_swap = False
    # How a match of several games is won: "wins" (more games won; the default) or
    # "totals" (the games' scores added up: Procon 2020).
    match_by = "wins"
    # How a tournament's table ranks teams (matches/tournaments/standings.py): its
    # contest's own rules; the Procon way (wins, then points) unless the game says otherwise.
    ranking = WINS_THEN_POINTS

    def match_result(self, finals: Sequence[tuple[Sequence[Mapping[str, int]],
                                                  Mapping[str, Any]]],
                     games: int) -> dict[str, Any]:
        """What the result of a game adds once its match is decided, from the finished
        games' `(scores, result)` in this game's team order (the last is this game's).
        By default a match of wins: once a team has more wins than the games left could
        give the other, `{"match": {"winner": 0 | 1 | None, "wins": [a, b]}}` (a draw
        when every game is played and the wins are level); `{}` before."""
        wins = match_wins(finals)
        left = games - len(finals)
        if abs(wins[0] - wins[1]) <= left and left > 0:
            return {}
        winner = None if wins[0] == wins[1] else 0 if wins[0] > wins[1] else 1
        return {"match": {"winner": winner, "wins": wins}}

    # --- programs that speak lines (manage.py playprogram) ---------------------------

    speaks_lines = False  # its programs read and print moves as lines (GPCC's Blokus Duo)

    def program_move(self, line: str) -> list[dict[str, Any]] | None:
        """The actions a line a game's program printed stands for, or None when the line
        is no move (the program's own output). None for every line of a game whose
        programs do not speak lines."""
        return None

    def program_line(self, outcome: Mapping[str, Any]) -> str | None:
        """A played action as the line a program reads (None: nothing to tell)."""
        return None

    # --- the side panel --------------------------------------------------------------

    def card_words(self, score: Mapping[str, int], team: int) -> str:
        """The words under a team's number on its card (its score's other parts)."""
        return self.score_words(score)

    # --- each turn explained ----------------------------------------------------------

    def callouts(self, previous: Mapping[str, Any], state: Mapping[str, Any],
                 names: Sequence[str]) -> list[dict[str, Any]]:
        """At most two things that mattered in the turn from `previous` to `state`, the
        most telling first, in the language of the moment: each {"text", "team" (the
        team it is about, or None), "at" ([x, y] on the board, or None)}
        (docs/live-protocol.md, `callouts`). Each game says what is notable."""
        found = sorted(self.notable(previous, state, names), key=lambda item: -item[0])
        return [callout for _, callout in found[:2]]

    def decisive(self, state: Mapping[str, Any], result: Mapping[str, Any]) -> list[list[int]]:
        """The cells of the final state that decided the result, to mark at the end
        ([x, y] each; none where the whole board decides, as a total of points does)."""
        return []

    def notable(self, previous: Mapping[str, Any], state: Mapping[str, Any],
                names: Sequence[str]) -> list[tuple[float, dict[str, Any]]]:
        """What the turn did that a spectator should be told, each with its weight (how
        much it mattered: points gained, agents collided); nothing by default."""
        return []

    def panel(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """What the venue's side panel shows of a timeline/1 state beyond the numbers, in
        words that name no game: `words`: each card's line; `to_move`: the team whose
        move is next where the teams take turns (else None); `trays`: each team's pieces
        still to place, each {"name", "size", "cells"} (else None); `moves`: per team,
        each outcome of the turn as the game words it (None: the screen's own words)."""
        scores = state["scores"]
        return {"words": [self.card_words(score, team) for team, score in enumerate(scores)],
                "to_move": None, "trays": None, "moves": None}

    # --- actions and pictures --------------------------------------------------------

    def said(self, outcome: Mapping[str, Any]) -> str:
        """What a team sent, from an outcome, in the record's key order (any key the
        game does not know after them, sorted), e.g. "agent 0 type move x 3 y 4"."""
        shown = [key for key in self.action_keys if key in outcome]
        shown += sorted(key for key in outcome
                        if key not in shown and key not in self.answer_keys)
        return " ".join(f"{key} {outcome[key]}" for key in shown)

    # What the audit says of a team that sent nothing a turn (`idle_said`): a msgid.
    idle = words.gettext_noop("none (its agents stayed)")

    def idle_said(self, turn: int, team: int) -> str:
        """The audit's words for a team with no counted action in a turn."""
        return words.gettext(self.idle)

    def score_said(self, score: Mapping[str, int]) -> str:
        """A team's score in words for the audit: "12 points (wall 5 · territory 7)"."""
        rest = [f"{words.part(part)} {value}" for part, value in score.items()
                if part != self.headline_part]
        said = self.amount(score[self.headline_part])
        return f"{said} ({' · '.join(rest)})" if rest else said

    def last_turn(self, state: Mapping[str, Any],
                  previous: Mapping[str, Any] | None = None) -> dict[str, list[Any]]:
        """What a state's turn did, as the board picture and every screen draw it (the
        one place this is worked out: the server sends it as `last`): `marks`, each
        [x, y, kind, team],
        kind "acted" (a cell put, removed or built on), "read" (a cell a look or a
        search read) or "placed" (a square of the piece just placed); `moves`, each
        [[x0, y0], [x1, y1], team]. `previous`: the state before, where the agents
        stood (None: a move is drawn only where the state alone tells its start). A
        game may add what else its screens mark on the board in that state, worked out
        here and nowhere else (Procon 2020's `areas`: the cells each team encloses)."""
        return {"marks": [], "moves": []}

    def last_turns(self, states: Sequence[Mapping[str, Any]],
                   before: Mapping[str, Any] | None = None) -> list[dict[str, list[Any]]]:
        """`last_turn` of each of these states in order, each from the one before it
        (the first from `before`, if given): what a replay or a variation draws."""
        return [self.last_turn(state, previous)
                for previous, state in zip([before, *states], states, strict=False)]

    def picture_style(self) -> dict[str, Any]:
        """What a board picture draws, in terms that name no game (`matches.picture`):
        `walls`, `territory`: the cell characters of each team's walls (tiles) and
        land; `pieces`: each team's placed squares, outlined by piece; `blocks`: cells
        drawn as stone, crossed when `crossed`; `items`: cells with a gold dot;
        `labels`: each team's one player's letter (else agents show their number);
        `marked`: cells ringed in a team's colour while empty; `values`: the board's
        point values are shown in every cell; `coordinates`: the names of columns and
        rows in order (default: numbers from 0, as the API counts them)."""
        return {"walls": ("A", "B"), "territory": ("a", "b"), "blocks": "#",
                "crossed": True, "values": True}


def match_wins(finals: Sequence[tuple[Any, Mapping[str, Any]]]) -> list[int]:
    """Games won by each team, from finished games' `(scores, result)`."""
    wins = [0, 0]
    for _, result in finals:
        if result.get("winner") is not None:
            wins[result["winner"]] += 1
    return wins
