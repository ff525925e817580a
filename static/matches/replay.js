// The replay: any turn of a match, stepped, played at a speed, sought on the timeline
// (a full-width slider with turn ticks and marked events), the chart or the list of
// turns. The turn is in the address (?turn=N), so a link opens exactly that turn. A
// match still running opens at its latest turn and grows live: new turns arrive over
// the match's socket.
//
// This module holds the turn shown and moves it; each part of the page is drawn by its
// own module (replay/*.js).

import { createBoard, drawLegend, drawState, partName, remember, turnSpan } from "./board.js";
import { drawChart, drawChartLegend } from "./chart.js";
import { setHidden } from "./dom.js";
import { inLanguage } from "./i18n.js";
import { drawActions } from "./replay/actions.js";
import { drawAnalysis, loadAnalysis, startAnalysis } from "./replay/analysis.js";
import { bindControls, drawPlayState, drawPosition } from "./replay/controls.js";
import { drawDebug, startDebug } from "./replay/debug.js";
import { turnEvent } from "./replay/events.js";
import { followMatch } from "./replay/follow.js";
import { watchOverflow } from "./replay/scroll-cue.js";
import { drawShare, startShare } from "./replay/share.js";
import { drawStatus, drawTeams } from "./replay/status.js";
import { drawLeadKey, drawMarks, drawTicks } from "./replay/timeline.js";
import { drawCurrentLine, turnLine } from "./replay/turns.js";
import { describeBranch, drawPicks, startWhatIf } from "./replay/whatif.js";
import { startZoom } from "./replay/zoom.js";
import { drawCallouts } from "./venue/callouts.js";

// Browsers rate-limit history.replaceState; stepping at 16× or holding → would hit it.
const URL_EVERY_MS = 200;

export function startReplay(root, data) {
  const replay = new Replay(root, data);
  replay.start();
  return replay;
}

class Replay {
  constructor(root, data) {
    this.root = root;
    this.data = data;
    this.states = data.states;
    this.reasons = data.reasons || []; // each turn's reasons in every language
    this.callouts = data.callouts || []; // what each turn did that mattered, in every language
    // who leads after each turn and the bar's share: the server's word (the last, once the
    // match is over, the result's), as live turns and variations bring it
    this.leads = data.leads || [];
    this.lasts = data.lasts || []; // what each turn did on the board, as the server marks it
    this.swings = data.swings || []; // how each turn moved the score difference: the server's
    this.news = data.news || []; // what the cells remember of each turn, as the server says
    this.status = data.status;
    this.result = data.result;
    this.verdict = inLanguage(data.verdicts) || data.verdict || null; // the server's words
    this.connection = "connected";
    this.turn = 0;
    this.playing = false;
    this.speed = 1;
    this.timer = null;
    this.urlTimer = null;
    this.pending = null; // a linked turn not played yet: shown once it arrives
    this.follow = false; // at the latest turn by choice: new turns are shown as they come
    this.original = null; // the match's own turns while a variation is shown (what if)
    const parts = Object.keys(this.states[0].scores[0]);
    this.headline = data.headline; // the score part on the cards, as the server names it
    this.parts = [this.headline, ...parts.filter((part) => part !== this.headline)];
    this.leaders = [];
    this.events = [];
    this.states.forEach((state, turn) => this.noteEvent(turn));
    this.recall();
    this.view = createBoard(this.find(".board"), data.board, data.game);
  }

  find(selector) {
    return this.root.querySelector(selector);
  }

  get latest() {
    return this.states.length - 1;
  }

  // The slider and the chart span the whole match (a match over, the turns it took: a
  // Blokus Duo game ends near turn 35 of the 84 it may take); only the turns played can
  // be shown.
  get span() {
    return turnSpan(this.data.game, this.data.turns, this.latest, this.status === "finished");
  }

  // Who leads after each turn (the server's word), and what happened in it.
  noteEvent(turn) {
    this.leaders.push(this.leads[turn]?.team ?? -1); // -1: nobody (leadChanges)
    this.events.push(turnEvent(this.states, turn, this.data.marks, this.swings[turn]));
  }

  start() {
    // The board takes the height the control bar leaves, however many rows it wraps to.
    const controls = this.find(".controls");
    new ResizeObserver(() => {
      this.root.style.setProperty("--controls", `${controls.offsetHeight}px`);
      drawTicks(this.root, this.span);
    }).observe(controls);
    bindControls(this.root, this);
    drawLegend(this.find("[data-board-legend]"), this.data.game);
    drawChartLegend(this.find("[data-chart-legend]"), this.parts, (part) => partName(this.data.game, part));
    drawLeadKey(this.root, this.data.game);
    this.drawTimeline();
    this.moveList = this.find("[data-move-list]");
    this.states.forEach((state) => this.moveList.append(this.lineOf(state)));
    for (const box of this.root.querySelectorAll(".scroller")) watchOverflow(box);
    // A match still being played opens at its latest turn and follows the new ones.
    const asked = turnFromAddress();
    const toCome = this.status !== "finished" && asked !== null && asked <= this.data.turns;
    if (toCome && asked > this.latest) this.pending = asked;
    this.follow = asked === null && this.status !== "finished";
    this.show(asked ?? (this.follow ? this.latest : 0));
    if (asked !== null && asked !== this.turn && this.pending === null) this.noteAddress();
    this.stream = followMatch(this);
    startDebug(this);
    startWhatIf(this);
    startShare(this);
    startAnalysis(this);
    startZoom(this.root);
  }

  // --- what if (replay/whatif.js) ---------------------------------------------------

  // The variation in place of the match: the match's turns up to the branch, then the
  // variation's, until exitVariation() puts the match back (turns that came live
  // meanwhile are kept for it).
  enterVariation(from, answer) {
    if (this.original) this.exitVariation();
    this.original = { states: this.states, reasons: this.reasons, callouts: this.callouts,
                      leads: this.leads, lasts: this.lasts, swings: this.swings, events: this.events, leaders: this.leaders,
                      news: this.news, memory: this.memory, live: [], from };
    this.pause();
    this.states = [...this.states.slice(0, from + 1), ...answer.states];
    this.reasons = [...this.reasons.slice(0, from + 1), ...answer.states.map(() => ({}))];
    this.callouts = [...this.callouts.slice(0, from + 1), ...answer.states.map(() => null)];
    this.leads = [...this.leads.slice(0, from + 1), ...answer.leads];
    this.lasts = [...this.lasts.slice(0, from + 1), ...answer.lasts];
    this.swings = [...this.swings.slice(0, from + 1), ...answer.swings];
    this.news = [...this.news.slice(0, from + 1), ...answer.news];
    this.retrace();
    this.root.classList.add("in-variation");
    this.show(from + 1);
  }

  exitVariation() {
    if (!this.original) return;
    const { live, ...kept } = this.original;
    Object.assign(this, kept);
    this.original = null;
    this.root.classList.remove("in-variation");
    setHidden(this.find("[data-variation]"), true);
    this.retrace();
    for (const message of live) this.addTurn(message);
    this.show(this.turn);
  }

  // What the game's cells remember of the turns this.states holds now (the server's news
  // of each turn).
  recall() {
    this.memory = new Map();
    for (let turn = 1; turn < this.states.length; turn += 1) remember(this.data.game, this.memory, this.news[turn], turn);
  }

  // Who led and what happened at each turn, the cells' memory, the list and the marks,
  // for the turns this.states holds now.
  retrace() {
    this.events = [];
    this.leaders = [];
    this.states.forEach((state, turn) => this.noteEvent(turn));
    this.recall();
    this.moveList.replaceChildren(...this.states.map((state) => this.lineOf(state)));
    this.drawTimeline();
    drawTicks(this.root, this.span);
  }

  // --- moving -------------------------------------------------------------------

  show(turn) {
    const wanted = Number.isFinite(turn) ? Math.round(turn) : this.turn;
    this.turn = Math.min(Math.max(wanted, 0), this.latest);
    this.render();
  }

  moveTo(turn) {
    this.pending = null;
    this.show(turn);
    this.follow = this.turn === this.latest;
    this.noteAddress();
  }

  step(delta) {
    this.moveTo(this.turn + delta);
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  play() {
    if (this.latest === 0) return;
    if (this.turn >= this.latest) this.moveTo(0);
    this.playing = true;
    this.schedule();
    drawPlayState(this.root, this.playing, this.speed);
  }

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    drawPlayState(this.root, this.playing, this.speed);
    this.writeAddress();
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), 1000 / this.speed);
  }

  tick() {
    if (!this.playing) return;
    this.moveTo(this.turn + 1);
    if (this.turn >= this.latest) this.pause();
    else this.schedule();
  }

  setSpeed(speed) {
    this.speed = speed;
    if (this.playing) this.schedule();
    drawPlayState(this.root, this.playing, this.speed);
  }

  // --- the address --------------------------------------------------------------

  noteAddress() {
    if (this.urlTimer === null) this.urlTimer = setTimeout(() => this.writeAddress(), URL_EVERY_MS);
  }

  writeAddress() {
    clearTimeout(this.urlTimer);
    this.urlTimer = null;
    const url = new URL(location.href);
    if (url.searchParams.get("turn") === String(this.turn)) return;
    url.searchParams.set("turn", this.turn);
    history.replaceState(history.state, "", url);
  }

  // --- live turns (replay/follow.js) ------------------------------------------------

  addTurn(message) {
    if (this.original) { // watching a variation: the match's new turn waits for its return
      this.original.live.push(message);
      return;
    }
    if (message.turn !== this.states.length) return;
    const { turn, cells, agents, outcomes, scores } = message;
    this.states.push({ turn, cells, agents, outcomes, scores });
    this.reasons[turn] = message.reasons || {};
    this.callouts[turn] = message.callouts || null;
    this.leads[turn] = message.lead || null;
    this.lasts[turn] = message.last || null;
    this.swings[turn] = message.swing || null;
    this.noteEvent(turn);
    this.news[turn] = message; // what the cells remember of it: the message's word
    remember(this.data.game, this.memory, message, turn);
    loadAnalysis(this); // a new position to measure
    if (this.status === "upcoming") this.status = "running";
    this.drawTimeline();
    drawTicks(this.root, this.span);
    this.moveList.append(this.lineOf(this.states[turn]));
    if (this.pending !== null && this.latest >= this.pending) {
      this.show(this.pending);
      this.pending = null;
    } else if (this.follow || this.pending !== null) {
      this.show(this.latest);
    } else {
      this.render();
    }
  }

  finish(message) {
    this.status = "finished";
    this.result = message.result;
    this.verdict = inLanguage(message.verdicts) || message.verdict || null;
    if (message.lead && !this.original) { // the result's word on the last turn
      this.leads[this.latest] = message.lead;
      this.leaders[this.latest] = message.lead.team ?? -1;
    }
    this.drawTimeline();
    this.drawScores(this.states[this.turn].scores);
    this.showStatus();
    this.stream.close(); // nothing comes after the end
  }

  connected(connection) {
    this.connection = connection;
    this.showStatus();
  }

  // --- drawing ----------------------------------------------------------------------

  render() {
    const state = this.states[this.turn];
    drawState(this.view, state, { memory: this.memory, last: this.lasts[this.turn] });
    this.drawScores(state.scores);
    drawPosition(this.root, { turn: this.turn, latest: this.latest, span: this.span });
    drawChart(this.find("svg.chart"), this.states, this.span, { keys: this.parts, current: this.turn });
    drawActions(this.root, this.data, state, this.events[state.turn], this.reasons[state.turn]);
    drawCallouts(this.find(".board"), inLanguage(this.callouts[state.turn]), state.turn);
    drawCurrentLine(this.moveList, this.turn);
    drawPlayState(this.root, this.playing, this.speed);
    drawDebug(this);
    if (!this.original) describeBranch(this);
    drawPicks(this);
    drawShare(this, false);
    drawAnalysis(this);
    this.showStatus();
  }

  drawScores(scores) {
    drawTeams(this.root, this.data, scores, this.leads[this.turn]);
  }

  drawTimeline() {
    const { data, events, leaders, span } = this;
    drawMarks(this.root, { data, events, leaders, span, finished: this.status === "finished" },
              (turn) => this.moveTo(turn));
  }

  lineOf(state) {
    return turnLine(this.data.game, state, this.states[state.turn - 1], this.events[state.turn], this.headline);
  }

  showStatus() {
    const { connection, status, verdict } = this;
    drawStatus(this.root, { connection, status, verdict, played: this.latest, turns: this.data.turns });
    // over, a game has the turns it played ("/ 33"), not the most it might have ("/ 84")
    const of = this.find("[data-turn-of]");
    if (of && this.status === "finished" && !this.original) of.textContent = `/ ${this.latest}`;
  }
}

function turnFromAddress() {
  const asked = new URLSearchParams(location.search).get("turn");
  return asked !== null && /^\d+$/.test(asked.trim()) ? Number(asked) : null;
}
