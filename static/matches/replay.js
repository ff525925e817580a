// The replay: any turn of a match, stepped, played at a speed, sought on the timeline
// (a full-width slider with turn ticks and marked events), the chart or the list of
// turns. The turn is in the address (?turn=N), so a link opens exactly that turn. A
// match still running opens at its latest turn and grows live: new turns arrive over
// the match's socket.

import { RESULT_MARK, actor, conflictWords, createBoard, describeAction, drawLegend, drawState, failureCounts,
         gameRules, invalidWords, noteArrivals, partName, scoreCards } from "./board.js";
import { drawChart, drawChartLegend, onChartPick } from "./chart.js";
import { gettext, inLanguage, interpolate, ngettext, withNodes } from "./i18n.js";
import { MatchStream } from "./live.js";

// Browsers rate-limit history.replaceState; stepping at 16× or holding → would hit it.
const URL_EVERY_MS = 200;
const NOT_TEXT = new Set(["range", "button", "checkbox", "radio", "submit", "reset"]);
const RESULT_WORDS = {
  // Translators: an action's result, the tooltip of its mark ✓: it was carried out
  ok: gettext("ok"),
  // Translators: an action's result, the tooltip of its mark ✕: the rules refused it
  invalid: gettext("invalid"),
  // Translators: an action's result, the tooltip of its mark ⚡: it collided with another action
  conflict: gettext("conflict"),
};
// Turns between ticks on the timeline, the smallest that leaves room.
const STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];

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
    this.verdict = inLanguage(data.verdicts) || data.verdict || null; // the server's words
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
    this.leaders = [];
    this.events = [];
    this.states.forEach((state, turn) => this.noteEvent(turn));
    this.arrived = new Map(); // what the game's cells remember of earlier turns
    for (let turn = 1; turn < this.states.length; turn += 1) {
      noteArrivals(data.game, this.arrived, this.states[turn - 1], this.states[turn]);
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

  // Who leads after each turn (by the game's own measure), and what happened in it.
  noteEvent(turn) {
    this.leaders.push(scoreCards(this.data.game, this.states[turn].scores).leader);
    this.events.push(turnEvent(this.states, turn, this.data.marks, this.headline));
  }

  start() {
    // The board takes the height the control bar leaves, however many rows it wraps to.
    const controls = this.find(".controls");
    new ResizeObserver(() => {
      this.root.style.setProperty("--controls", `${controls.offsetHeight}px`);
      this.drawTicks();
    }).observe(controls);
    this.bindControls();
    drawLegend(this.find("[data-board-legend]"), this.data.game);
    drawChartLegend(this.find("[data-chart-legend]"), this.parts, (part) => partName(this.data.game, part));
    this.drawLeadKey();
    this.drawMarks();
    this.moveList = this.find("[data-move-list]");
    this.states.forEach((state) => this.moveList.append(this.turnLine(state)));
    for (const box of this.root.querySelectorAll(".scroller")) watchOverflow(box);
    // A match still being played opens at its latest turn and follows the new ones.
    const asked = turnFromAddress();
    const toCome = this.status !== "finished" && asked !== null && asked <= this.data.turns;
    if (toCome && asked > this.latest) this.pending = asked;
    this.follow = asked === null && this.status !== "finished";
    this.show(asked ?? (this.follow ? this.latest : 0));
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
    this.find("[data-move-list]").addEventListener("click", (event) => {
      const line = event.target.closest("[data-line-turn]");
      if (line) this.moveTo(Number(line.dataset.lineTurn));
    });
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
    this.noteEvent(turn);
    noteArrivals(this.data.game, this.arrived, this.states[turn - 1], this.states[turn]);
    if (this.status === "upcoming") this.status = "running";
    this.drawMarks();
    this.drawTicks();
    this.moveList.append(this.turnLine(this.states[turn]));
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
    this.drawMarks();
    this.drawTeams(this.states[this.turn].scores);
    this.drawStatus();
    this.stream.close(); // nothing comes after the end
  }

  // --- drawing ----------------------------------------------------------------------

  render() {
    const state = this.states[this.turn];
    drawState(this.view, state, { arrived: this.arrived, previous: this.states[this.turn - 1] });
    this.drawTeams(state.scores);
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
    this.drawCurrentLine();
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

  // The shown turn's actions: a row per agent, team A's beside team B's (or each
  // team's one command or move), every reason in full.
  drawActions(state) {
    const box = this.find("[data-actions]");
    box.querySelector(".summary").replaceChildren(...this.summary(state));
    const grid = box.querySelector("[data-turn-actions]");
    grid.textContent = "";
    if (state.turn === 0) return;
    const { game, teams, agents } = this.data;
    grid.append(...teams.map((team, index) => text("h3", team.name, `team-${"ab"[index]}-text`)));
    const outcomes = state.outcomes || [[], []];
    for (const [key, row] of actionRows(game, outcomes, agents)) {
      row.forEach((own, team) => {
        const cell = document.createElement("div");
        cell.className = "action-cell";
        cell.dataset.team = team;
        cell.dataset.row = key;
        cell.append(...own.map((outcome) => actionItem(game, outcome, team)));
        grid.append(cell);
      });
    }
    grid.scrollTop = 0;
    grid.dispatchEvent(new Event("scroll"));
  }

  summary(state) {
    const rules = gameRules(this.data.game);
    if (state.turn === 0) {
      // Translators: the replay's turn 0, e.g. "Turn 0: the empty board, before any action"
      const words = interpolate(gettext("Turn 0: %(start)s, before any action"), { start: rules.start });
      return [text("span", words)];
    }
    const event = this.events[state.turn];
    const { turn } = state;
    const invalid = invalidWords(event.invalid);
    // Translators: a turn's summary, e.g. "Turn 3: 2 conflicts, 1 invalid"
    const words = rules.agents ? interpolate(gettext("Turn %(turn)s: %(conflicts)s, %(invalid)s"),
                                             { turn, conflicts: conflictWords(event.conflicts), invalid })
      // Translators: a turn's summary where no agents act, e.g. "Turn 3: 0 invalid"
      : interpolate(gettext("Turn %(turn)s: %(invalid)s"), { turn, invalid });
    const parts = [text("span", words)];
    if (event.bigSwing) {
      const gainer = event.swing > 0 ? 0 : 1;
      // Translators: a turn that moved the score difference a lot, e.g. "▲ big swing: +40 for Alpha"
      const swing = interpolate(gettext("▲ big swing: +%(points)s for %(name)s"),
                                { points: Math.abs(event.swing), name: this.data.teams[gainer].name });
      parts.push(text("span", swing, `event swing team-${"ab"[gainer]}-text`));
    }
    // Translators: a turn with many conflicting actions
    if (event.manyConflicts) parts.push(text("span", gettext("⚡ many conflicts"), "event conflicts"));
    return parts;
  }

  // Above the slider, one lane each: who took the lead, big swings, many conflicts.
  drawMarks() {
    const box = this.find("[data-marks]");
    box.textContent = "";
    const span = this.span;
    const { labels } = gameRules(this.data.game);
    const leads = leadChanges(this.leaders, this.status === "finished");
    for (const event of this.events) {
      if (event === null) continue;
      const gainer = event.swing > 0 ? 0 : 1;
      const lead = leads.get(event.turn);
      const { turn, conflicts } = event;
      const marks = [
        [lead !== undefined, `lead team-${"ab"[lead]}`, (labels || "AB")[lead],
         // Translators: a mark on the timeline, e.g. "Turn 12: Alpha takes the lead"
         interpolate(gettext("Turn %(turn)s: %(name)s takes the lead"),
                     { turn, name: this.data.teams[lead]?.name })],
        [event.bigSwing, `swing team-${"ab"[gainer]}`, "▲",
         // Translators: a mark on the timeline, e.g. "Turn 12: big swing, +40 for Alpha"
         interpolate(gettext("Turn %(turn)s: big swing, +%(points)s for %(name)s"),
                     { turn, points: Math.abs(event.swing), name: this.data.teams[gainer].name })],
        [event.manyConflicts, "conflicts", "⚡",
         // Translators: a mark on the timeline, e.g. "Turn 12: 5 conflicts"
         interpolate(ngettext("Turn %(turn)s: %(count)s conflict", "Turn %(turn)s: %(count)s conflicts",
                              conflicts), { turn, count: conflicts })],
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

  drawLeadKey() {
    const { labels } = gameRules(this.data.game);
    const key = this.find("[data-lead-key]");
    const marks = document.createDocumentFragment();
    marks.append(text("span", (labels || "AB")[0], "mark-key lead team-a"),
                 text("span", (labels || "AB")[1], "mark-key lead team-b"));
    // Translators: the timeline's key: %(marks)s is the two teams' lead marks (A and B) drawn there
    key.replaceChildren(...withNodes(gettext("%(marks)s takes the lead"), { marks }));
  }

  // Under the slider: a tick for every turn (or every few, on a narrow screen), the
  // numbers far enough apart to read.
  drawTicks() {
    const box = this.find("[data-ticks]");
    const width = box.clientWidth;
    if (!width) return;
    const span = this.span;
    const minor = STEPS.find((step) => (width * step) / span >= 6) || span;
    const major = STEPS.find((step) => step % minor === 0 && (width * step) / span >= 44) || span;
    const ticks = [];
    for (let turn = 0; turn <= span; turn += minor) {
      const tick = text("span", "", turn % major === 0 ? "tick major" : "tick");
      tick.style.left = `${(100 * turn) / span}%`;
      if (turn % major === 0 && (span - turn) * width >= 40 * span) tick.textContent = turn;
      ticks.push(tick);
    }
    const last = text("span", span, "tick major end");
    last.style.left = "100%";
    box.replaceChildren(...ticks, last);
  }

  // One line of the list of turns: its number, each team's move (or, where agents act,
  // how its number moved and what failed), and its marks. Click it to go there.
  turnLine(state) {
    const line = document.createElement("li");
    line.dataset.lineTurn = state.turn;
    line.append(text("span", state.turn, "number"));
    if (state.turn === 0) {
      line.append(text("span", gameRules(this.data.game).start, "start"));
      return line;
    }
    const before = this.states[state.turn - 1];
    (state.outcomes || [[], []]).forEach((outcomes, team) => {
      line.append(text("span", this.moveWords(outcomes, team, before, state),
                       `move team-${"ab"[team]}${outcomes.length ? "" : " idle"}`));
    });
    const event = this.events[state.turn];
    const flags = text("span", "", "flags");
    if (event.bigSwing) flags.append(text("span", "▲", `team-${"ab"[event.swing > 0 ? 0 : 1]}-text`), " ");
    flags.append([event.conflicts ? `⚡${event.conflicts}` : "", event.invalid ? `✕${event.invalid}` : ""]
      .filter(Boolean).join(" "));
    line.append(flags);
    return line;
  }

  moveWords(outcomes, team, before, state) {
    const { game } = this.data;
    if (!gameRules(game).agents) {
      return outcomes.length ? outcomes.map((outcome) => describeAction(game, outcome)).join(", ")
        : describeAction(game, { type: null });
    }
    const change = state.scores[team][this.headline] - before.scores[team][this.headline];
    const moved = outcomes.filter((outcome) => outcome.result === "ok").length;
    const acted = outcomes.length
      // Translators: how many of a team's actions in a turn succeeded, e.g. "3 ok"
      ? interpolate(ngettext("%(count)s ok", "%(count)s ok", moved), { count: moved })
      : describeAction(game, { type: null });
    return `${change > 0 ? "+" : change < 0 ? "−" : "±"}${Math.abs(change)} · ${acted}`;
  }

  drawCurrentLine() {
    const list = this.moveList;
    for (const old of list.querySelectorAll("[aria-current]")) old.removeAttribute("aria-current");
    const line = list.children[this.turn];
    if (!line) return;
    line.setAttribute("aria-current", "true");
    // Keep the shown turn in the list's view without scrolling the page.
    const top = line.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top + line.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = top - (list.clientHeight - line.offsetHeight) / 2;
    }
    list.dispatchEvent(new Event("scroll"));
  }

  drawPlayState() {
    this.root.classList.toggle("playing", this.playing);
    const button = this.find('[data-action="play"]');
    const label = this.playing
      // Translators: the replay's play button while it plays: pause the replay
      ? gettext("Pause")
      // Translators: the replay's play button while it is paused: play the turns one after another
      : gettext("Play");
    button.setAttribute("aria-label", label);
    this.find("[data-events]").textContent = this.playing ? `▶ ${speedName(this.speed)}`
      // Translators: the replay is paused (not playing its turns)
      : gettext("paused");
  }

  drawStatus() {
    const [kind, words] = this.statusText();
    const badge = this.find("[data-status]");
    badge.textContent = words;
    badge.dataset.kind = kind;
    this.root.classList.toggle("offline", this.connection === "reconnecting");
    // Translators: the replay's link to the match's own page (its final screen, or the live one)
    this.find("[data-live-link]").textContent = this.status === "finished" ? gettext("match screen")
      : gettext("back to live");
  }

  statusText() {
    if (this.connection === "reconnecting") return ["reconnecting", gettext("reconnecting…")];
    if (this.status === "finished") {
      // Translators: the replay's status: the match is over
      if (!this.verdict) return ["finished", gettext("finished")];
      // Translators: the replay's status, then the result as the server words it, e.g. "finished — Alpha
      // wins by 34 points"
      return ["finished", interpolate(gettext("finished — %(verdict)s"), { verdict: this.verdict })];
    }
    // Translators: the replay's status: the match has not started
    if (this.status === "upcoming") return ["upcoming", gettext("not started yet")];
    const played = this.latest, turns = this.data.turns;
    // Translators: the replay's status while the match is played, e.g. "live — 12 of 60 turns played"
    const words = ngettext("live — %(played)s of %(turns)s turn played",
                           "live — %(played)s of %(turns)s turns played", turns);
    return ["live", interpolate(words, { played, turns })];
  }
}

// --- pure helpers ------------------------------------------------------------------

// What happened in one turn: how the score difference (A − B) moved, how many actions
// failed, and whether it is marked on the timeline (thresholds from the server).
export function turnEvent(states, turn, marks, headline = "total") {
  if (turn === 0) return null;
  const difference = (state) => state.scores[0][headline] - state.scores[1][headline];
  const swing = difference(states[turn]) - difference(states[turn - 1]);
  const { conflicts, invalid } = failureCounts(states[turn]);
  return { turn, swing, conflicts, invalid, bigSwing: Math.abs(swing) >= marks.swing,
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

// Keep a scrolling box's cue up to date: how many of its rows are out of sight below
// (or above), so a list that must scroll says so.
function watchOverflow(box) {
  const cue = box.parentElement.querySelector(":scope > [data-more-cue]");
  const update = () => {
    const { top, bottom } = box.getBoundingClientRect();
    const rows = [...box.children].filter((row) => row.offsetHeight);
    const count = (hidden) => new Set(rows.filter(hidden).map((row, index) => row.dataset.row ?? index)).size;
    const below = count((row) => row.getBoundingClientRect().bottom > bottom + 2);
    const above = count((row) => row.getBoundingClientRect().top < top - 2);
    box.dataset.more = [above ? "above" : "", below ? "below" : ""].join(" ").trim();
    if (!cue) return;
    cue.hidden = !(above || below);
    const more = !below ? ""
      // Translators: a scrolling list's cue: how many of its rows are out of sight below
      : interpolate(ngettext("▼ %(count)s more below", "▼ %(count)s more below", below), { count: below });
    const gone = !above ? ""
      // Translators: a scrolling list's cue: how many of its rows are out of sight above
      : interpolate(ngettext("▲ %(count)s above", "▲ %(count)s above", above), { count: above });
    // Translators: a cue under a list that scrolls: scroll it to see the rest
    cue.textContent = [more, gone, gettext("scroll")].filter(Boolean).join(" · ");
  };
  box.addEventListener("scroll", update, { passive: true });
  new ResizeObserver(update).observe(box);
  new MutationObserver(update).observe(box, { childList: true });
}

function actionItem(game, outcome, team) {
  const result = outcome.type === null ? "none" : outcome.result;
  const item = text("div", "", `action ${result}`);
  item.append(text("span", actor(game, team, outcome), `agent-chip team-${"ab"[team]}`),
              text("span", describeAction(game, outcome), "what"),
              text("span", RESULT_MARK[result] || "", "result"));
  if (RESULT_MARK[result]) item.lastChild.title = RESULT_WORDS[result];
  if (outcome.reason) {
    item.append(text("span", outcome.reason, "reason"));  // data, as the rules wrote it
    item.lastChild.setAttribute("translate", "no");
  }
  const read = gameRules(game).reply?.(outcome); // what a program read, where the game says
  if (read) item.append(text("span", read, "reply"));
  return item;
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

function speedName(speed) {
  return { 0.25: "¼×", 0.5: "½×" }[speed] || `${speed}×`;
}
