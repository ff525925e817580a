// The games the screens draw, by game id: each game's own module says how its board,
// actions, scores and legend look (see kakomimasu.js for the shape every one exports).

import blokusDuo from "./blokus-duo.js";
import chaser from "./chaser.js";
import kakomimasu from "./kakomimasu.js";
import procon2020 from "./procon2020.js";

const GAMES = new Map([kakomimasu, procon2020, chaser, blokusDuo].map((rules) => [rules.game, rules]));

// A game this page does not know is drawn as the first one was, rather than not at all.
export function gameFor(game) {
  return GAMES.get(game) || kakomimasu;
}
