// The replay's analysis (GET /api/matches/{id}/analysis): each team's figure after
// every turn where the game's rules measure a position (Blokus Duo: each player's legal
// moves, as Pentobi's analysis plots them), drawn as a second chart under the scores.

import { drawChart } from "../chart.js";
import { setHidden } from "../dom.js";

export async function startAnalysis(replay) {
  const box = replay.find("[data-analysis]");
  if (!box) return;
  replay.analysis = null;
  await loadAnalysis(replay);
}

export async function loadAnalysis(replay) {
  const box = replay.find("[data-analysis]");
  if (!box || replay.original) return;
  const response = await fetch(`/api/matches/${replay.data.id}/analysis`);
  if (!response.ok) return;
  const answer = await response.json();
  replay.analysis = answer.series.map((figures, turn) => ({
    turn, scores: figures.map((value) => ({ figure: value })),
  }));
  setHidden(box, false);
  drawAnalysis(replay);
}

export function drawAnalysis(replay) {
  const box = replay.find("[data-analysis]");
  if (!box || !replay.analysis || replay.original) {
    if (box) setHidden(box, !replay.analysis || Boolean(replay.original));
    return;
  }
  setHidden(box, false);
  const shown = replay.analysis.slice(0, replay.latest + 1);
  drawChart(box.querySelector("svg"), shown, replay.span, { key: "figure", current: replay.turn });
}
