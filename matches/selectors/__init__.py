"""Read queries shared by the API, the pages and the websocket consumers, one module a
concern: records.py (a match's record, board, states and lists), clocks.py (deadlines
and chess clocks), verdicts.py (results in words, in every language), report.py (a
team's report on its own match), ladder.py (the practice ratings), moments.py (a
match at a moment: meta, timing, public state, summary, a team's own submission) and
audit.py (export, verification, the replay's data). Its public names are handed on
here, so that a reader asks `selectors` and not where each lives.

Nothing here ever reads a submission of a turn that is not resolved yet: the public
views are built from Turn rows and counted submissions only. The one exception,
`own_submission`, answers a team about its own.
"""

from matches.selectors.audit import (  # noqa: F401
    SWING_AT_LEAST,
    Verdict,
    biggest_swing,
    conflict_threshold,
    drawing_news_of,
    match_export,
    match_verify,
    replay_data,
    stored_timeline,
    swing_threshold,
)
from matches.selectors.clocks import (  # noqa: F401
    TIME_USED,
    move_clock,
    move_clock_fields,
    next_deadline,
    paused_now,
)
from matches.selectors.ladder import practice_ladder  # noqa: F401
from matches.selectors.moments import (  # noqa: F401
    featured_match,
    game_of_match,
    last_marks,
    leads,
    match_meta,
    match_summary,
    own_submission,
    public_state,
    timing,
)
from matches.selectors.published import published_matches  # noqa: F401
from matches.selectors.records import (  # noqa: F401
    SECRET_BOARD,
    board_shown,
    drawing_states,
    epoch_ms,
    games_in_order,
    initial_view,
    latest_scores,
    latest_view,
    match_games,
    match_record,
    recent_matches,
    score_history,
    stored_turns,
    veiled_view,
    view_before,
)
from matches.selectors.report import open_report_team, rehearsals, team_report  # noqa: F401
from matches.selectors.verdicts import (  # noqa: F401
    callouts_every_language,
    callouts_this_language,
    callouts_unless_quiet,
    every_language,
    final_result,
    reasons_said,
    verdict,
    verdicts,
    verdicts_now,
)
