// The venue screen of one game of a match of several (Procon 2020's two, CHaser's best
// of three): once the game is over and its result has stood a while, the screen moves
// on to the match's next game by itself, as the TV does, with the address's options
// (its language). The next game is asked of the server until it is there (a CHaser game
// is made when it starts).

const STANDS_MS = 20000; // the result on the screen before it moves on
const ASK_MS = 3000;

export function followNextGame(matchId, screen) {
  const games = screen.meta?.game_of_match;
  if (!games || games.game >= games.of || screen.following) return;
  screen.following = true;
  const go = (next) => location.assign(`/matches/${next}/${location.search}`);
  setTimeout(async function ask() {
    try {
      const answer = await fetch(`/api/matches/${matchId}`);
      const next = answer.ok ? (await answer.json()).game_of_match?.ids?.[games.game] : null;
      if (next) return go(next);
    } catch {
      // the server is away for a moment: ask again
    }
    setTimeout(ask, ASK_MS);
  }, STANDS_MS);
}
