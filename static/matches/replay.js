// The replay: any turn of a match, stepped, played at a speed, sought on a slider or
// the chart. The turn is in the address (?turn=N), so a link opens exactly that turn.
// A match still running grows live: new turns arrive over the match's socket.

import { actor, createBoard, describeAction, drawLegend, drawState, gameRules, noteArrivals,
         scoreCards } from "./board.js";
import { drawChart, onChartPick } from "./chart.js";
import { MatchStream } from "./live.js";

// Browsers rate-limit history.replaceState; stepping at 16× or holding → would hit it.
const URL_EVERY_MS = 200;
const NOT_TEXT = new Set(["range", "button", "checkbox", "radio", "submit", "reset"]);
const RESULT_TEXT = { ok: "✓ ok", invalid: "✕ invalid", conflict: "⚡ conflict" };

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
    this.status = data.status;
    this.result = data.result;
    this.connection = "connected";
    this.turn = 0;
    this.playing = false;
    this.speed = 1;
    this.timer = null;
    this.urlTimer = null;
    this.pending = null; // a linked turn not played yet: shown once it arrives
    this.follow = false; // at the latest turn by choice: new turns are shown as they come
    const parts = Object.keys(this.states[0].scores[0]);
    this.headline = parts.includes("total") ? "total" : parts[0];
    this.parts = [this.headline, ...parts.filter((part) => part !== this.headline)];
    this.events = this.states.map((state, turn) => turnEvent(this.states, turn, data.marks, this.headline));
    this.arrived = new Map(); // Procon 2020: when each treasure was taken
    for (let turn = 1; turn < this.states.length; turn += 1) {
      noteArrivals(this.arrived, this.states[turn - 1], this.states[turn]);
    }
    this.view = createBoard(this.find(".board"), data.board, data.game);
  }

  find(selector) {
    return this.root.querySelector(selector);
  }

  get latest() {
    return this.states.length - 1;
  }

  // The slider and the chart span the whole match; only the turns played can be shown.
  get span() {
    return Math.max(this.data.turns, this.latest, 1);
  }

  start() {
    // The board takes the height the control bar leaves, however many rows it wraps to.
    const controls = this.find(".controls");
    new ResizeObserver(() => {
      this.root.style.setProperty("--controls", `${controls.offsetHeight}px`);
    }).observe(controls);
    this.bindControls();
    drawLegend(this.find("[data-board-legend]"), this.data.game);
    this.drawChartLegend();
    this.drawMarks();
    const asked = turnFromAddress();
    const toCome = this.status !== "finished" && asked !== null && asked <= this.data.turns;
    if (toCome && asked > this.latest) this.pending = asked;
    this.follow = asked === null && this.latest === 0;
    this.show(asked ?? 0);
    if (asked !== null && asked !== this.turn && this.pending === null) this.noteAddress();
    this.connect();
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
    this.drawPlayState();
  }

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    this.drawPlayState();
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
    this.drawPlayState();
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

  // --- controls -----------------------------------------------------------------

  bindControls() {
    const actions = { first: () => this.moveTo(0), back: () => this.step(-1), play: () => this.toggle(),
                      forward: () => this.step(1), last: () => this.moveTo(this.latest),
                      keys: () => this.toggleKeys() };
    for (const button of this.root.querySelectorAll("[data-action]")) {
      button.addEventListener("click", () => actions[button.dataset.action]());
    }
    this.find("[data-slider]").addEventListener("input", (event) => this.moveTo(Number(event.target.value)));
    this.bindTurnField(this.find("[data-turn-field]"));
    this.bindSpeed(this.find("[data-speed]"));
    onChartPick(this.find("svg.chart"), (turn) => this.moveTo(turn));
    this.find("[data-keys]").addEventListener("click", (event) => {
      if (event.target === event.currentTarget) this.toggleKeys(false);
    });
    document.addEventListener("keydown", (event) => this.onKey(event));
  }

  bindTurnField(field) {
    const commit = () => {
      const text = field.value.trim();
      if (/^\d+$/.test(text)) this.moveTo(Number(text));
      field.value = this.turn;
    };
    field.addEventListener("change", commit);
    field.addEventListener("keydown", (event) => {
      if (event.key === "Enter") commit();
      if (event.key === "Escape") {
        field.value = this.turn;
        field.blur();
      }
    });
  }

  bindSpeed(select) {
    // Keys are ignored while the speed has the focus, so a pick with the pointer hands
    // the focus back; choosing with the keyboard keeps it where the user put it.
    let pointer = false;
    select.addEventListener("pointerdown", () => { pointer = true; });
    select.addEventListener("change", () => {
      this.setSpeed(Number(select.value));
      if (pointer) select.blur();
      pointer = false;
    });
  }

  onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || isTextField(event.target)) return;
    const act = {
      ArrowLeft: () => this.step(-1), ArrowRight: () => this.step(1),
      Home: () => this.moveTo(0), End: () => this.moveTo(this.latest),
      " ": () => this.toggle(), "?": () => this.toggleKeys(), Escape: () => this.toggleKeys(false),
    }[event.key];
    if (!act) return;
    event.preventDefault(); // also keeps a focused button from being clicked by Space
    if (event.repeat && (event.key === " " || event.key === "?")) return;
    act();
  }

  toggleKeys(visible) {
    const overlay = this.find("[data-keys]");
    overlay.hidden = !(visible ?? overlay.hidden);
  }

  // --- live turns -------------------------------------------------------------------

  connect() {
    if (this.status === "finished") return;
    if (this.status === "upcoming") {
      setTimeout(() => {
        if (this.status === "upcoming") this.status = "running";
        this.drawStatus();
      }, Math.max(this.data.start_at - Date.now(), 0));
    }
    this.stream = new MatchStream(this.data.id, {
      onTurn: (message) => this.addTurn(message),
      onEnd: (message) => this.finish(message),
      onStatus: (connection) => {
        this.connection = connection;
        this.drawStatus();
      },
    });
    this.stream.turn = this.latest; // only what came after the page was made
    this.stream.connect();
  }

  addTurn(message) {
    if (message.turn !== this.states.length) return;
    const { turn, cells, agents, outcomes, scores } = message;
    this.states.push({ turn, cells, agents, outcomes, scores });
    this.events.push(turnEvent(this.states, turn, this.data.marks, this.headline));
    noteArrivals(this.arrived, this.states[turn - 1], this.states[turn]);
    if (this.status === "upcoming") this.status = "running";
    this.drawMarks();
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
    this.drawTeams(this.states[this.turn].scores);
    this.drawStatus();
    this.stream.close(); // nothing comes after the end
  }

  // --- drawing ----------------------------------------------------------------------

  render() {
    const state = this.states[this.turn];
    drawState(this.view, state, { arrived: this.arrived, previous: this.states[this.turn - 1] });
    this.drawTeams(state.scores);
    this.find("[data-turn]").textContent = `${this.turn} / ${this.data.turns}`;
    const slider = this.find("[data-slider]");
    slider.max = this.span;
    slider.value = this.turn;
    slider.disabled = this.latest === 0;
    slider.style.setProperty("--played", `${(100 * this.latest) / this.span}%`);
    const field = this.find("[data-turn-field]");
    field.max = this.latest;
    if (document.activeElement !== field) field.value = this.turn;
    this.find("[data-png-link]").search = `?turn=${this.turn}`;
    drawChart(this.find("svg.chart"), this.states, this.data.turns, { keys: this.parts, current: this.turn });
    this.drawActions(state);
    this.drawPlayState();
    this.drawStatus();
  }

  drawTeams(scores) {
    // At the end, the result says who won (a game may be won otherwise than on points).
    const decided = this.result && this.turn === this.latest ? this.result.winner : undefined;
    const cards = scoreCards(this.data.game, scores, decided);
    scores.forEach((score, team) => {
      const card = this.find(`[data-team="${team}"]`);
      card.querySelector(".total").textContent = cards.numbers[team];
      card.querySelector(".details").textContent = cards.details[team];
      card.classList.toggle("leader", cards.leader === team);
    });
    this.find(".share-a").style.width = `${100 * cards.share}%`;
  }

  drawActions(state) {
    const box = this.find("[data-actions]");
    box.querySelector(".summary").replaceChildren(...this.summary(state));
    const teams = box.querySelector(".action-teams");
    teams.textContent = "";
    if (state.turn === 0) return;
    (state.outcomes || [[], []]).forEach((outcomes, team) => {
      const section = document.createElement("section");
      const name = document.createElement("h3");
      name.className = `team-${"ab"[team]}-text`;
      name.textContent = this.data.teams[team].name;
      const list = document.createElement("ul");
      list.append(...teamRows(this.data.game, outcomes, this.data.agents).map(
        (row) => actionItem(this.data.game, row, team)));
      section.append(name, list);
      teams.append(section);
    });
  }

  summary(state) {
    const rules = gameRules(this.data.game);
    if (state.turn === 0) return [text("span", `Turn 0: ${rules.start}, before any action`)];
    const event = this.events[state.turn];
    const conflicts = rules.agents ? `${plural(event.conflicts, "conflict")}, ` : "";
    const parts = [text("span", `Turn ${state.turn}: ${conflicts}${plural(event.invalid, "invalid", "invalid")}`)];
    if (event.bigSwing) {
      const gainer = event.swing > 0 ? 0 : 1;
      parts.push(text("span", `▲ big swing: +${Math.abs(event.swing)} for ${this.data.teams[gainer].name}`,
                      `event swing team-${"ab"[gainer]}-text`));
    }
    if (event.manyConflicts) parts.push(text("span", "⚡ many conflicts", "event conflicts"));
    return parts;
  }

  drawMarks() {
    const box = this.find("[data-marks]");
    box.textContent = "";
    const span = this.span;
    for (const event of this.events) {
      if (event === null) continue;
      const gainer = event.swing > 0 ? 0 : 1;
      const marks = [
        [event.bigSwing, `swing team-${"ab"[gainer]}`, "▲",
         `Turn ${event.turn}: big swing, +${Math.abs(event.swing)} for ${this.data.teams[gainer].name}`],
        [event.manyConflicts, "conflicts", "⚡", `Turn ${event.turn}: ${event.conflicts} conflicts`],
      ];
      for (const [shown, kind, glyph, label] of marks) {
        if (shown) box.append(this.mark(event.turn, (100 * event.turn) / span, kind, glyph, label));
      }
    }
  }

  mark(turn, left, kind, glyph, label) {
    const mark = text("button", glyph, `mark ${kind}`);
    Object.assign(mark, { type: "button", tabIndex: -1, title: label });
    mark.setAttribute("aria-label", label);
    mark.dataset.markTurn = turn;
    mark.style.left = `${left}%`;
    mark.addEventListener("click", () => this.moveTo(turn));
    return mark;
  }

  drawChartLegend() {
    const legend = this.find("[data-chart-legend]");
    const styles = ["solid", "dashed", "dotted"];
    legend.replaceChildren(...this.parts.map((part, index) => {
      const item = text("span", ` ${part}`);
      item.prepend(text("span", "", `line-key ${styles[index] || "solid"}`));
      return item;
    }), text("span", "click the chart to go to a turn", "muted"));
  }

  drawPlayState() {
    this.root.classList.toggle("playing", this.playing);
    const button = this.find('[data-action="play"]');
    button.setAttribute("aria-label", this.playing ? "Pause" : "Play");
    this.find("[data-events]").textContent = this.playing ? `▶ ${speedName(this.speed)}` : "paused";
  }

  drawStatus() {
    const [kind, words] = this.statusText();
    const badge = this.find("[data-status]");
    badge.textContent = words;
    badge.dataset.kind = kind;
    this.root.classList.toggle("offline", this.connection === "reconnecting");
    this.find("[data-live-link]").textContent = this.status === "finished" ? "match screen" : "back to live";
  }

  statusText() {
    if (this.connection === "reconnecting") return ["reconnecting", "reconnecting…"];
    if (this.status === "finished") {
      if (!this.result) return ["finished", "finished"];
      const { winner, decided_by: decidedBy } = this.result;
      if (winner === null) return ["finished", "finished — a draw"];
      return ["finished", `finished — ${this.data.teams[winner].name} wins on ${decidedBy}`];
    }
    if (this.status === "upcoming") return ["upcoming", "not started yet"];
    return ["live", `live — ${this.latest} of ${this.data.turns} turns played`];
  }
}

// --- pure helpers ------------------------------------------------------------------

// What happened in one turn: how the score difference (A − B) moved, how many actions
// failed, and whether it is marked on the timeline (thresholds from the server).
export function turnEvent(states, turn, marks, headline = "total") {
  if (turn === 0) return null;
  const difference = (state) => state.scores[0][headline] - state.scores[1][headline];
  const swing = difference(states[turn]) - difference(states[turn - 1]);
  const results = (states[turn].outcomes || []).flat().map((outcome) => outcome.result);
  const conflicts = results.filter((result) => result === "conflict").length;
  const invalid = results.filter((result) => result === "invalid").length;
  return { turn, swing, conflicts, invalid, bigSwing: Math.abs(swing) >= marks.swing,
           manyConflicts: conflicts >= marks.conflicts };
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

// One team's rows: each agent's actions, or the team's one command or move (CHaser,
// Blokus Duo), or a row saying it did nothing.
export function teamRows(game, outcomes, agents) {
  if (gameRules(game).agents) return agentRows(outcomes, agents);
  return outcomes.length ? outcomes : [{ type: null }];
}

function actionItem(game, outcome, team) {
  const result = outcome.type === null ? "none" : outcome.result;
  const item = text("li", "", `action ${result}`);
  item.append(text("span", actor(game, team, outcome), `agent-chip team-${"ab"[team]}`),
              text("span", describeAction(game, outcome), "what"),
              text("span", RESULT_TEXT[result] || "", "result"));
  if (outcome.reason) item.append(text("span", outcome.reason, "reason"));
  if (outcome.reply) item.append(text("span", replyWords(outcome), "reply"));
  return item;
}

// CHaser's digits as its client read them: the game-on digit, then the 3×3 around (by
// rows) or, after a search, the nine cells in a line.
export function replyWords(outcome) {
  const search = outcome.command?.[0] === "s";
  return `ready ${digitGroups(outcome.ready)} → reply ${digitGroups(outcome.reply, search)}`;
}

function digitGroups(digits, line = false) {
  if (typeof digits !== "string" || digits.length !== 10) return String(digits);
  const cells = line ? [digits.slice(1)] : [digits.slice(1, 4), digits.slice(4, 7), digits.slice(7)];
  return [digits[0], ...cells].join(" ");
}

function isTextField(node) {
  if (!(node instanceof HTMLElement)) return false;
  if (node.isContentEditable || node.tagName === "SELECT" || node.tagName === "TEXTAREA") return true;
  return node.tagName === "INPUT" && !NOT_TEXT.has(node.type);
}

function turnFromAddress() {
  const asked = new URLSearchParams(location.search).get("turn");
  return asked !== null && /^\d+$/.test(asked.trim()) ? Number(asked) : null;
}

function text(tag, words, className) {
  const node = document.createElement(tag);
  node.textContent = words;
  if (className) node.className = className;
  return node;
}

function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 ? one : many}`;
}

function speedName(speed) {
  return { 0.25: "¼×", 0.5: "½×" }[speed] || `${speed}×`;
}
