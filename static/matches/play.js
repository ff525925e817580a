// The play page: a person plays one team of a match through the answer API, with the
// team's token (kept in this tab's sessionStorage, sent only in the Authorization
// header, and offered to the match's socket). The match is read with GET
// /api/matches/{id} when the page opens, when its socket says it has moved on (a turn, the
// end, the judges' hand, an announcement: a version the page lacks) and at the moments
// it changes by itself (the start, a strategy step's opening), never on a timer; a
// move is the POST a program would send. What a game's moves look like comes from its
// module's `play`.

import { createBoard, drawState, gameRules } from "./board.js";
import { ServerClock, formatCountdown } from "./clock.js";
import { setHidden, setText } from "./dom.js";
import { gettext, inLanguage, interpolate, language, ngettext, withNodes } from "./i18n.js";
import { drawNotices } from "./venue/notices.js";

const RETRY_MS = 3000; // after a read that failed (the server away for a moment)
const NEXT_GAME_MS = 8000;
// Why the server refused a move, by the API's error code (docs/api.md, "Errors"), in the
// page's language; the server's own detail (in English) follows where it adds to it.
const REFUSALS = {
  // Translators: the play page: the API refused a move (401 unauthorized)
  unauthorized: gettext("the server does not know this token"),
  // Translators: the play page: the API refused a move (403 forbidden)
  forbidden: gettext("this token is a team's token of another match"),
  // Translators: the play page: the API refused a move (404 not_found)
  not_found: gettext("the server does not know this match"),
  // Translators: the play page: the API refused a move (409 not_running)
  not_running: gettext("the match is not being played now"),
  // Translators: the play page: the API refused a move (409 step_over)
  step_over: gettext("the strategy step is over"),
  // Translators: the play page: the API refused a move sent for a turn that is not the open one
  wrong_turn: gettext("the move was sent for a turn that is not the open one"),
  // Translators: the play page: the API refused a move (409 not_your_move)
  not_your_move: gettext("it is the other team's move"),
  // Translators: the play page: the API refused a move (409 time_over)
  time_over: gettext("your thinking time has run out: the game is lost on time"),
  // Translators: the play page: the API refused a move (400 illegal_move)
  illegal_move: gettext("the move breaks a rule of the game"),
  // Translators: the play page: the API refused a move (400 invalid_actions)
  invalid_actions: gettext("the actions are not in the form the server takes"),
  // Translators: the play page: the API refused a move (400 malformed_json)
  malformed_json: gettext("the request is not valid JSON"),
  // Translators: the play page: the API refused a move (413 too_large)
  too_large: gettext("the request is too large"),
  // Translators: the play page: the API refused a move (429 rate_limited)
  rate_limited: gettext("too many requests: wait a moment and send again"),
};

export function startPlay(root) {
  const matchId = root.dataset.match;
  const key = `play-token:${matchId}`;
  const find = (name) => root.querySelector(`[data-${name}]`);
  const form = find("token-form");
  const page = { root, matchId, find, clock: new ServerClock(), data: null, token: null };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = find("token-input").value.trim();
    if (token) await begin(page, token, key);
  });
  find("forget").addEventListener("click", () => {
    sessionStorage.removeItem(key);
    location.reload();
  });
  const kept = sessionStorage.getItem(key);
  if (kept) begin(page, kept, key);
}

// Check the token with the API before keeping it: a team's token for this match shows
// the match with `you` set; any other token is refused here, clearly.
async function begin(page, token, key) {
  const refusal = page.find("token-refusal");
  let answer;
  try {
    answer = await readMatch(page.matchId, token);
  } catch {
    return refuse(refusal, gettext("The server could not be reached: try again in a moment."));
  }
  if (answer.status === 200 && Number.isInteger(answer.body.you)) {
    sessionStorage.setItem(key, token);
    page.token = token;
    refusal.hidden = true;
    start(page, answer.body);
    return;
  }
  sessionStorage.removeItem(key);
  const words = gettext(
    "This token is not the token of a team in match %(match)s: check the token your team was given for this match.");
  refuse(refusal, interpolate(words, { match: page.matchId }));
}

function refuse(box, text) {
  box.textContent = text;
  box.hidden = false;
}

// Why the server refused a request, in words: the sentence for its error code, then the
// server's detail (always English) in parentheses; a page in English shows the detail
// alone, which says it all. A code the page has no sentence for: the detail as it is.
function refusalWords(status, body) {
  const sentence = Object.hasOwn(REFUSALS, body.error) ? REFUSALS[body.error] : null;
  const detail = body.detail ? String(body.detail) : "";
  if (!sentence) return detail || body.error || `HTTP ${status}`;
  if (!detail || language === "en") return detail || sentence;
  // Translators: why the server refused a move, then the server's own words (in English)
  return interpolate(gettext("%(reason)s (%(detail)s)"), { reason: sentence, detail });
}

async function readMatch(matchId, token) {
  const response = await fetch(`/api/matches/${matchId}`, {
    headers: { Authorization: `Bearer ${token}` }, cache: "no-store" });
  const body = await response.json().catch(() => ({}));
  return { status: response.status, body };
}

function start(page, data) {
  const { root, find } = page;
  root.dataset.phase = "playing";
  find("token-form").hidden = true;
  find("stage").hidden = false;
  find("side").hidden = false;
  page.you = data.you;
  root.dataset.you = data.you;
  page.rules = gameRules(data.game);
  page.play = page.rules.play || null;
  page.view = createBoard(root.querySelector(".board"), data.board, data.game);
  const of = data.game_of_match;
  // Translators: the play page's title line, e.g. "Final · game 1 of 2"
  find("title").textContent = of ? interpolate(gettext("%(title)s · game %(game)s of %(games)s"),
                                               { title: data.title, game: of.game, games: of.of })
    : data.title;
  const you = data.teams[data.you];
  const label = page.rules.labels?.[data.you] ?? "AB"[data.you];
  find("you").innerHTML = "";
  // Translators: the team this person plays, e.g. "You play A · Alpha" (drawn in its colour)
  find("you").append(...withNodes(gettext("You play %(team)s"),
                                  { team: teamMark(data.you, `${label} · ${you.name}`) }));
  data.teams.forEach((team, index) => {
    find(`clock-name="${index}"`).replaceChildren(teamMark(index, team.name));
  });
  root.dataset.kind = page.play?.kind || "none";
  find("hand").hidden = page.play?.kind !== "pieces";
  find("tray").hidden = page.play?.kind !== "pieces";
  find("orders").hidden = page.play?.kind !== "agents";
  find("unplayable").hidden = Boolean(page.play);
  if (page.play?.start) page.play.start(servedBy(page));
  if (page.play?.kind === "agents") hookOrders(page);
  show(page, data);
  follow(page);
  wakeAtNextMoment(page);
  setInterval(() => tickClocks(page), 100);
}

// The match's socket (docs/live-protocol.md), opened with the team's token, offered as
// the subprotocols ["bearer", token] (a browser cannot send the header): the team's own
// match, live, as its program's socket. A version the page lacks has it read the match
// once; a socket opened again after a drop does when its snapshot is not what it shows.
function follow(page) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let retry = 1000;
  const connect = () => {
    const socket = new WebSocket(`${scheme}://${location.host}/ws/matches/${page.matchId}/`,
                                 ["bearer", page.token]);
    socket.onmessage = (event) => {
      retry = 1000;
      const message = JSON.parse(event.data);
      const data = page.data;
      page.root.dataset.socket = "open";
      if (message.type === "snapshot") {
        if (message.turn !== data.turn || message.status !== data.status) refresh(page);
      } else if (message.type === "turn") {
        if (message.turn > data.turn) refresh(page);
      } else if (["end", "control", "notices", "next_game"].includes(message.type)) {
        refresh(page);
      }
    };
    socket.onclose = (event) => {
      page.root.dataset.socket = "closed";
      if (event.code === 4404) return; // the token no longer watches it (a new one was given)
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    };
  };
  connect();
}

// The next moment the match changes with no news: its start, or the opening of the
// strategy step after a turn's transition (a game of steps). A moment already past
// (the server behind its time) is looked at again later and later.
function wakeAtNextMoment(page) {
  clearTimeout(page.wake);
  const data = page.data;
  let at = null;
  if (data.status === "upcoming") at = data.start_at;
  else if (data.status === "running" && !data.clocks && !data.strategy_turn && data.deadline
           && !data.paused) at = data.deadline - data.strategy_ms;
  if (at === null || at === undefined) return;
  const wait = at - page.clock.now();
  page.late = wait > 0 ? 0 : Math.min(8000, Math.max(250, (page.late || 125) * 2));
  page.wake = setTimeout(() => refresh(page), wait > 0 ? wait + 50 : page.late);
}

// A game whose module brings its own interface (its `play.start` and `play.show`: the
// hand and the tray of pieces) is given the page, with what it may ask of it: whether
// the move is the player's, a refusal shown, actions sent, the match read again.
function servedBy(page) {
  return Object.assign(page, {
    myMove: () => myMove(page),
    refuse,
    send: (actions) => sendActions(page, actions),
    refresh: () => refresh(page),
  });
}

// Sends actions for the open turn as a program would: {sent: true}, or {sent: false,
// reason}: why the server refused them, in words (null: the server was not reached).
async function sendActions(page, actions) {
  try {
    const response = await fetch(`/api/matches/${page.matchId}/actions`, {
      method: "POST", cache: "no-store",
      headers: { Authorization: `Bearer ${page.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ actions, turn: page.data.strategy_turn }),
    });
    if (response.status === 202) return { sent: true };
    const body = await response.json().catch(() => ({}));
    return { sent: false, reason: refusalWords(response.status, body) };
  } catch {
    return { sent: false, reason: null };
  }
}

// Read the match once (one read at a time: one asked for meanwhile is made after it).
async function refresh(page) {
  if (page.reading) {
    page.again = true;
    return;
  }
  page.reading = true;
  const answer = await readMatch(page.matchId, page.token).catch(() => null);
  if (answer?.status === 200) show(page, answer.body);
  page.reading = false;
  const failed = !answer || answer.status >= 500 || answer.status === 429;
  if (page.again || failed) {
    page.again = false;
    clearTimeout(page.wake);
    page.wake = setTimeout(() => refresh(page), failed ? RETRY_MS : 0);
  } else {
    wakeAtNextMoment(page);
  }
}

function teamMark(index, text) {
  const span = document.createElement("span");
  span.className = `team-${"ab"[index]}-text`;
  span.textContent = text;
  return span;
}

// A new answer: redraw the board when a turn was played, and the words every time.
function show(page, data) {
  const before = page.data;
  if (before && data.server_time < before.server_time) return; // an older answer, late
  page.data = data;
  page.clock.update(data.server_time);
  page.shownAt = data.server_time;
  drawNotices(page.root, data.announcements); // everyone's, and those to this team alone
  const fresh = !before || before.turn !== data.turn || before.status !== data.status;
  if (fresh) {
    drawState(page.view, data.state, { last: data.last }); // the last turn's marks, the server's
    // the game's own interface, on the new position (false: the player has no legal move)
    if (page.play?.show) page.stuck = page.play.show(page) === false;
  }
  const { find } = page;
  const mine = myMove(page);
  page.root.dataset.mine = String(mine);
  let words;
  if (data.status === "finished") {
    // Translators: the end of the game, then its result, e.g. "Game over · Alpha wins"
    words = interpolate(gettext("Game over · %(result)s"), { result: resultWords(data) });
  } else if (data.status === "upcoming") {
    words = gettext("The match has not started yet");
  } else if (!data.clocks) {
    words = data.strategy_turn
      ? interpolate(gettext("Turn %(turn)s: send your actions"), { turn: data.strategy_turn })
      : gettext("The turn is being played");
  } else if (mine) {
    words = page.stuck
      ? gettext("Your move · you have no legal move: the server passes for you") : gettext("Your move");
  } else {
    // Translators: whose move it is when the team's name is unknown
    const name = data.teams[data.to_move]?.name ?? gettext("The other team");
    // Translators: whose move it is, e.g. "Alpha to move"
    words = interpolate(gettext("%(name)s to move"), { name });
  }
  find("to-move").textContent = words;
  if (data.status === "finished") offerNextGame(page, data);
  // where the teams take turns, the last move in words (one team's, the other's empty)
  const last = data.clocks && data.actions?.[data.actions.length - 1];
  const moved = last?.outcomes.findIndex((side) => side.length);
  find("last-move").textContent = last && moved >= 0
    // Translators: the last move, e.g. "Turn 3: Alpha · 55u0 · piece u, 5 squares"
    ? interpolate(gettext("Turn %(turn)s: %(name)s · %(move)s"), {
      turn: last.turn, name: data.teams[moved].name, move: page.rules.describe(last.outcomes[moved][0]) })
    : "";
  tickClocks(page);
  if (page.play?.kind === "agents") {
    find("orders").hidden = data.status === "finished";
    showOrders(page, before);
  }
}

// A match of several games: when one ends, the next is played with the same token; its
// page is offered at once and opened after NEXT_GAME_MS.
function offerNextGame(page, data) {
  const of = data.game_of_match;
  const next = of && of.game < of.of ? of.ids[of.game] : null;
  const link = page.find("next-game");
  if (!next || !link.hidden) return;
  sessionStorage.setItem(`play-token:${next}`, page.token);
  link.href = `/matches/${next}/play`;
  // Translators: the link to the next game of the match, e.g. "Play game 2 of 2 →"
  const words = gettext("Play game %(game)s of %(games)s →");
  link.textContent = interpolate(words, { game: of.game + 1, games: of.of });
  link.hidden = false;
  setTimeout(() => location.assign(link.href), NEXT_GAME_MS);
}

// The result in words, as the server says it (the venue's words), or "finished".
function resultWords(data) {
  // Translators: a game's result, after "Game over · ", when the page has no result to show
  return inLanguage(data.verdicts) || data.verdict || gettext("finished");
}

function myMove(page) {
  const data = page.data;
  return data.status === "running" && data.to_move === page.you;
}

function tickClocks(page) {
  const data = page.data;
  if (!data?.clocks) {
    setHidden(page.find("clocks"), true);
    if (page.play?.kind === "agents") tickCountdown(page);
    return;
  }
  const elapsed = page.clock.now() - data.server_time;
  data.clocks.forEach((left, index) => {
    const running = data.status === "running" && data.to_move === index;
    const shown = running ? left - elapsed : left;
    const cell = page.find(`clock="${index}"`);
    const text = formatCountdown(shown);
    setText(cell, text);
    cell.closest(".clock-row").classList.toggle("running", running);
    cell.classList.toggle("low", shown < 30000);
  });
}

// --- a game of agents acting at once ---------------------------------------------
// Each turn the player gives each agent one action (click the agent, then its target),
// sees them drawn on the board, and sends them before the strategy step's deadline; a
// later send replaces the earlier one, as the API says.

function hookOrders(page) {
  const { find, view } = page;
  page.orders = { turn: null, agent: null, plans: new Map(), sentFor: null };
  find("hint").textContent = page.play.hint || "";
  view.root.addEventListener("click", (event) => {
    const cell = event.target.closest?.(".cell");
    if (cell) clickCell(page, [Number(cell.dataset.x), Number(cell.dataset.y)]);
  });
  find("send").addEventListener("click", () => sendOrders(page));
  find("clear").addEventListener("click", () => {
    page.orders.plans.clear();
    drawOrders(page);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      page.orders.agent = null;
      drawOrders(page);
    }
  });
}

function myAgents(page) {
  return page.data.state.agents[page.you] || [];
}

function clickCell(page, [x, y]) {
  const { orders } = page;
  if (!page.data.strategy_turn || page.data.status !== "running") return;
  const agents = myAgents(page);
  const here = agents.findIndex((at) => at && at[0] === x && at[1] === y);
  const refusal = page.find("orders-refusal");
  refusal.hidden = true;
  if (here >= 0 && here !== orders.agent) {
    orders.agent = here;
  } else if (orders.agent !== null) {
    const { action, problem } = page.play.plan(page.data.state, page.you, orders.agent, [x, y],
      orders.plans.get(orders.agent));
    if (problem) {
      refuse(refusal, problem);
    } else {
      orders.plans.set(orders.agent, action);
      // on to the next agent that has no action yet, if any
      const next = agents.findIndex((_, agent) => !orders.plans.has(agent));
      orders.agent = next >= 0 ? next : orders.agent;
    }
  }
  drawOrders(page);
}

// A new answer: a new strategy step forgets the last one's plans.
function showOrders(page, before) {
  const { orders, data } = page;
  if (orders.turn !== data.strategy_turn) {
    orders.turn = data.strategy_turn;
    orders.plans.clear();
    orders.sentFor = null;
    const agents = myAgents(page);
    orders.agent = agents.length ? 0 : null;
    page.find("sent").textContent = "";
    page.find("orders-refusal").hidden = true;
  }
  if (!before || before.turn !== data.turn || before.strategy_turn !== data.strategy_turn) {
    drawOrders(page);
    if (data.strategy_turn) recallOrders(page, data.strategy_turn);
  }
}

// What the team already sent for this step (another tab, or before a reload) is what
// counts: the page starts from it.
async function recallOrders(page, turn) {
  const response = await fetch(`/api/matches/${page.matchId}/actions`, {
    headers: { Authorization: `Bearer ${page.token}` }, cache: "no-store" }).catch(() => null);
  const sent = response?.ok ? await response.json().catch(() => null) : null;
  const { orders } = page;
  if (!sent?.actions || sent.turn !== turn || orders.turn !== turn || orders.plans.size) return;
  for (const action of sent.actions) orders.plans.set(action.agent, action);
  orders.sentFor = turn;
  page.find("sent").textContent = sentWords(sent.actions.length, turn);
  drawOrders(page);
}

// What the team sent for a turn, e.g. "Sent 2 actions for turn 3 ✓ (a later send replaces it)".
function sentWords(count, turn) {
  const words = ngettext("Sent %(count)s action for turn %(turn)s ✓ (a later send replaces it)",
                         "Sent %(count)s actions for turn %(turn)s ✓ (a later send replaces it)", count);
  return interpolate(words, { count, turn });
}

function describePlan(page, action) {
  // Translators: an agent with no action set this turn: it stays where it is
  return action ? page.rules.describe(action) : gettext("stays (nothing set)");
}

function drawOrders(page) {
  const { orders, view, data, find, play } = page;
  for (const old of view.root.querySelectorAll(".plan")) old.remove();
  for (const cell of view.root.querySelectorAll("[data-selected]")) delete cell.dataset.selected;
  for (const cell of view.root.querySelectorAll("[data-planned]")) delete cell.dataset.planned;
  const agents = myAgents(page);
  const list = find("agent-list");
  list.replaceChildren();
  agents.forEach((at, agent) => {
    const action = orders.plans.get(agent);
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.agent = agent;
    button.setAttribute("aria-pressed", String(agent === orders.agent));
    button.textContent = at
      // Translators: an agent of the player's team and the cell it stands on, e.g. "Agent 0 · (3, 4)"
      ? interpolate(gettext("Agent %(agent)s · (%(x)s, %(y)s)"), { agent, x: at[0], y: at[1] })
      // Translators: an agent of the player's team not on the board yet ("off" the board)
      : interpolate(gettext("Agent %(agent)s · off"), { agent });
    button.addEventListener("click", () => {
      orders.agent = agent;
      drawOrders(page);
    });
    const plan = document.createElement("span");
    plan.className = action ? "planned" : "planned none";
    plan.textContent = describePlan(page, action);
    item.append(button, plan);
    list.append(item);
    if (agent === orders.agent && at) view.cells[at[1] * data.board.width + at[0]].dataset.selected = "";
    if (!action) return;
    const [x, y] = action.type === "stay" ? at : page.rules.target(action, agents);
    const mark = document.createElement("span");
    mark.className = `plan plan-${action.type}`;
    mark.textContent = `${agent}${play.marks[action.type]}`;
    view.cells[y * data.board.width + x].append(mark);
    view.cells[y * data.board.width + x].dataset.planned = "";
  });
  const count = orders.plans.size;
  const open = data.status === "running" && Boolean(data.strategy_turn);
  find("send").disabled = !open || page.sending;
  const words = open
    ? ngettext("Send %(count)s action for turn %(turn)s", "Send %(count)s actions for turn %(turn)s", count)
    : ngettext("Send %(count)s action", "Send %(count)s actions", count);
  find("send").textContent = interpolate(words, { count, turn: data.strategy_turn });
}

async function sendOrders(page) {
  const { orders, data, find } = page;
  const refusal = find("orders-refusal");
  refusal.hidden = true;
  page.sending = true;
  const actions = [...orders.plans.values()];
  const { sent, reason } = await sendActions(page, actions);
  if (sent) {
    orders.sentFor = data.strategy_turn;
    find("sent").textContent = sentWords(actions.length, data.strategy_turn);
  } else if (reason !== null) {
    // Translators: the server refused the actions sent, then why
    refuse(refusal, interpolate(gettext("Refused: %(reason)s"), { reason }));
  } else {
    refuse(refusal, gettext("Not sent: the server could not be reached."));
  }
  page.sending = false;
  drawOrders(page);
}

function tickCountdown(page) {
  const { data } = page;
  const box = page.find("countdown");
  let text;
  if (data.status === "finished") text = "";
  else if (data.paused) { // held by the judges: nothing is taken until it goes on
    text = interpolate(gettext("Paused by the judges: %(reason)s"), { reason: data.paused.reason }, true);
  } else if (data.strategy_turn && data.deadline) {
    // Translators: the open turn and the time left to send its actions, e.g. "Turn 3 · 4.2 s left"
    text = interpolate(gettext("Turn %(turn)s · %(time)s left"),
                       { turn: data.strategy_turn, time: formatCountdown(data.deadline - page.clock.now()) });
  } else if (data.deadline) {
    const time = formatCountdown(data.deadline - data.strategy_ms - page.clock.now());
    text = interpolate(gettext("Next turn in %(time)s"), { time });
  } else text = "";
  setText(box, text);
}
