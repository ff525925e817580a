// The venue screen of one game of a match of several (Procon 2020's two, CHaser's best
// of three): once the game is over and its result has stood a while, the screen moves
// on to the match's next game by itself, as the TV does, with the address's options
// (its language). The next game is asked of the server once then; one made later (a
// CHaser game is made when it starts) is told by the match's socket (`next_game`),
// never asked again on a timer.

const STANDS_MS = 20000; // the result on the screen before it moves on
const RETRY_MS = 3000; // after an ask that failed (the server away for a moment)

export function followNextGame(matchId, screen) {
  const games = screen.meta?.game_of_match;
  if (!games || games.game >= games.of || screen.following) return;
  screen.following = true;
  setTimeout(async function ask() {
    screen.stood = true;
    if (goIfMade(screen)) return;
    try {
      const answer = await fetch(`/api/matches/${matchId}`);
      if (answer.ok) {
        const ids = (await answer.json()).game_of_match?.ids;
        if (ids) screen.gameIds = ids;
        goIfMade(screen);
        return; // not made yet: its socket says when it is
      }
    } catch {
      // the server is away for a moment: ask again
    }
    setTimeout(ask, RETRY_MS);
  }, STANDS_MS);
}

// The match's socket says a later game was made (its games in order).
export function heardNextGame(screen, ids) {
  screen.gameIds = ids;
  if (screen.stood) goIfMade(screen);
}

function goIfMade(screen) {
  const next = screen.gameIds?.[screen.meta.game_of_match.game];
  if (!next) return false;
  location.assign(`/matches/${next}/${location.search}`);
  return true;
}
