// What happened in a match's turns, pure: each turn's swing and failures, where the lead
// changed, and the rows of a turn's actions.

import { failureCounts, gameRules } from "../board.js";

// What happened in one turn: how it moved the score difference (`swing`, the server's
// word: {team, points}, who gained and by how much, or null), how many actions failed,
// and whether it is marked on the timeline (thresholds from the server).
export function turnEvent(states, turn, marks, swing) {
  if (turn === 0) return null;
  const { conflicts, invalid } = failureCounts(states[turn]);
  return { turn, swing: swing || null, conflicts, invalid, bigSwing: Boolean(swing) && swing.points >= marks.swing,
           manyConflicts: conflicts >= marks.conflicts };
}

// The turns where a team took the lead (turn -> team): it leads after that turn, led
// by nobody or the other team before, and kept the lead (or a tie) the turn after, so
// a lead that goes back and forth with each move of an alternating game is no news.
// The last turn counts once the match is over.
export function leadChanges(leaders, finished) {
  const changes = new Map();
  let standing = -1;
  for (let turn = 1; turn < leaders.length; turn += 1) {
    const leader = leaders[turn];
    if (leader < 0 || leader === standing) continue;
    const next = leaders[turn + 1];
    const held = next === undefined ? finished : next === leader || next < 0;
    if (!held) continue;
    changes.set(turn, leader);
    standing = leader;
  }
  return changes;
}

// One row per agent (its actions in the order sent, or none), then actions that name
// no agent of the team (they are invalid, and listed all the same).
export function agentRows(outcomes, agents) {
  const known = (outcome) => Number.isInteger(outcome.agent) && outcome.agent >= 0 && outcome.agent < agents;
  const rows = [];
  for (let agent = 0; agent < agents; agent += 1) {
    const own = outcomes.filter((outcome) => outcome.agent === agent);
    rows.push(...(own.length ? own : [{ agent, type: null }]));
  }
  return rows.concat(outcomes.filter((outcome) => !known(outcome)));
}

// The rows of a turn's actions, each [key, [team A's outcomes, team B's]]: one row per
// agent (empty where it did nothing) then one per unknown agent named, or, where each
// team has one player, a single row.
export function actionRows(game, outcomes, agents) {
  if (!gameRules(game).agents) {
    return [["move", outcomes.map((own) => (own.length ? own : [{ type: null }]))]];
  }
  const byTeam = outcomes.map((own) => agentRows(own, agents));
  const keys = [...new Set(byTeam.flat().map((outcome) => JSON.stringify(outcome.agent ?? null)))];
  // an agent number the other team sent, not one of this team's: nothing to show here
  return keys.map((key) => [key, byTeam.map((rows) => rows.filter(
    (outcome) => JSON.stringify(outcome.agent ?? null) === key))]);
}
