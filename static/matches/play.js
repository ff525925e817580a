// The play page: a person plays one team of a match through the answer API, with the
// team's token (kept in this tab's sessionStorage, sent only in the Authorization
// header). The match is read by polling GET /api/matches/{id}; a move is the POST a
// program would send. What a game's moves look like comes from its module's `play`.

import { createBoard, drawState, gameRules } from "./board.js";
import { ServerClock, formatCountdown } from "./clock.js";

const POLL_MS = 700;
const NEXT_GAME_MS = 8000;
const SVG = "http://www.w3.org/2000/svg";

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
    return refuse(refusal, "The server could not be reached: try again in a moment.");
  }
  if (answer.status === 200 && Number.isInteger(answer.body.you)) {
    sessionStorage.setItem(key, token);
    page.token = token;
    refusal.hidden = true;
    start(page, answer.body);
    return;
  }
  sessionStorage.removeItem(key);
  refuse(refusal, `This token is not the token of a team in match ${page.matchId}: check `
    + "the token your team was given for this match.");
}

function refuse(box, text) {
  box.textContent = text;
  box.hidden = false;
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
  page.hand = { piece: null, orientation: 0, hover: null };
  const of = data.game_of_match;
  find("title").textContent = of ? `${data.title} · game ${of.game} of ${of.of}` : data.title;
  const you = data.teams[data.you];
  const label = page.rules.labels?.[data.you] ?? "AB"[data.you];
  find("you").innerHTML = "";
  find("you").append("You play ", teamMark(data.you, `${label} · ${you.name}`));
  data.teams.forEach((team, index) => {
    find(`clock-name="${index}"`).replaceChildren(teamMark(index, team.name));
  });
  root.dataset.kind = page.play?.kind || "none";
  find("hand").hidden = page.play?.kind !== "pieces";
  find("tray").hidden = page.play?.kind !== "pieces";
  find("orders").hidden = page.play?.kind !== "agents";
  find("unplayable").hidden = Boolean(page.play);
  if (page.play?.kind === "pieces") hookHand(page);
  if (page.play?.kind === "agents") hookOrders(page);
  show(page, data);
  poll(page);
  setInterval(() => tickClocks(page), 100);
}

function teamMark(index, text) {
  const span = document.createElement("span");
  span.className = `team-${"ab"[index]}-text`;
  span.textContent = text;
  return span;
}

async function poll(page) {
  try {
    const answer = await readMatch(page.matchId, page.token);
    if (answer.status === 200) show(page, answer.body);
  } catch {
    // the server is away for a moment: keep the last position and ask again
  }
  if (page.data?.status !== "finished") setTimeout(() => poll(page), POLL_MS);
}

// A new answer: redraw the board when a turn was played, and the words every time.
function show(page, data) {
  const before = page.data;
  if (before && data.server_time < before.server_time) return; // an older answer, late
  page.data = data;
  page.clock.update(data.server_time);
  page.shownAt = data.server_time;
  const fresh = !before || before.turn !== data.turn || before.status !== data.status;
  if (fresh) {
    drawState(page.view, data.state);
    if (page.play?.kind === "pieces") preparePosition(page);
  }
  const { find } = page;
  const mine = myMove(page);
  page.root.dataset.mine = String(mine);
  let words;
  if (data.status === "finished") words = `Game over · ${resultWords(data)}`;
  else if (data.status === "upcoming") words = "The match has not started yet";
  else if (!data.clocks) {
    words = data.strategy_turn ? `Turn ${data.strategy_turn}: send your actions`
      : "The turn is being played";
  } else if (mine) {
    words = page.legal?.length === 0
      ? "Your move · you have no legal move: the server passes for you" : "Your move";
  }
  else words = `${data.teams[data.to_move]?.name ?? "The other team"} to move`;
  find("to-move").textContent = words;
  if (data.status === "finished") offerNextGame(page, data);
  // where the teams take turns, the last move in words (one team's, the other's empty)
  const last = data.clocks && data.actions?.[data.actions.length - 1];
  const moved = last?.outcomes.findIndex((side) => side.length);
  find("last-move").textContent = last && moved >= 0
    ? `Turn ${last.turn}: ${data.teams[moved].name} · ${page.rules.describe(last.outcomes[moved][0])}`
    : "";
  tickClocks(page);
  if (page.play?.kind === "pieces" && fresh) {
    find("hand").hidden = data.status === "finished";
    drawTray(page);
    drawHand(page);
  }
  if (page.play?.kind === "agents") {
    find("orders").hidden = data.status === "finished";
    showOrders(page, before);
  }
}

// A match of several games (Procon 2020: two): when one ends, the next is played with
// the same token; its page is offered at once and opened after NEXT_GAME_MS.
function offerNextGame(page, data) {
  const of = data.game_of_match;
  const next = of && of.game < of.of ? of.ids[of.game] : null;
  const link = page.find("next-game");
  if (!next || !link.hidden) return;
  sessionStorage.setItem(`play-token:${next}`, page.token);
  link.href = `/matches/${next}/play`;
  link.textContent = `Play game ${of.game + 1} of ${of.of} →`;
  link.hidden = false;
  setTimeout(() => location.assign(link.href), NEXT_GAME_MS);
}

// The result as the API gives it, in words: who won (on time, if so), or a draw.
function resultWords(data) {
  const winner = data.result?.winner;
  if (winner == null) return data.result ? "a draw" : "finished";
  return `${data.teams[winner].name} wins${data.result.decided_by === "time" ? " on time" : ""}`;
}

function myMove(page) {
  const data = page.data;
  return data.status === "running" && data.to_move === page.you;
}

function tickClocks(page) {
  const data = page.data;
  if (!data?.clocks) {
    page.find("clocks").hidden = true;
    if (page.play?.kind === "agents") tickCountdown(page);
    return;
  }
  const elapsed = page.clock.now() - data.server_time;
  data.clocks.forEach((left, index) => {
    const running = data.status === "running" && data.to_move === index;
    const shown = running ? left - elapsed : left;
    const cell = page.find(`clock="${index}"`);
    const text = formatCountdown(shown);
    if (cell.textContent !== text) cell.textContent = text;
    cell.closest(".clock-row").classList.toggle("running", running);
    cell.classList.toggle("low", shown < 30000);

  });
}

// --- a piece game -----------------------------------------------------------------

function preparePosition(page) {
  const { play, data, you } = page;
  const placed = play.placed(data.actions, you);
  page.left = play.pieces.filter((piece) => !placed.has(piece));
  page.position = play.view(data.state.cells, you);
  page.legal = play.legal(page.position, page.left);
  page.movable = new Set(page.legal.map(([, , piece]) => piece));
  if (page.hand.piece && placed.has(page.hand.piece)) page.hand.piece = null;
  // at first, and once the chosen one is placed: the biggest piece that has somewhere to go
  if (!page.hand.piece) page.hand.piece = page.left.findLast((piece) => page.movable.has(piece)) ?? null;
}

function hookHand(page) {
  const { find, view } = page;
  find("rotate").addEventListener("click", () => turn(page, "turned"));
  find("flip").addEventListener("click", () => turn(page, "flipped"));
  document.addEventListener("keydown", (event) => {
    if (event.target.closest?.("input, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
    const wanted = { r: "turned", f: "flipped" }[event.key.toLowerCase()];
    if (wanted) {
      event.preventDefault();
      turn(page, wanted);
    }
  });
  view.root.addEventListener("pointermove", (event) => hover(page, event));
  view.root.addEventListener("pointerleave", () => {
    page.hand.hover = null;
    drawHand(page);
  });
  // A mouse places with one click on the piece it shows; a finger has no pointer to
  // show it first, so its first tap on a square shows the piece and a second one places it.
  view.root.addEventListener("pointerdown", (event) => {
    page.shownBefore = page.hand.hover;
    page.touching = event.pointerType === "touch";
  });
  view.root.addEventListener("click", (event) => {
    hover(page, event);
    const before = page.shownBefore, now = page.hand.hover;
    if (page.touching && !(before && now && before[0] === now[0] && before[1] === now[1])) return;
    place(page);
  });
}

function turn(page, how) {
  const hand = page.hand;
  if (!hand.piece) return;
  hand.orientation = page.play[how](hand.orientation);
  drawHand(page);
  drawTray(page);
}

function hover(page, event) {
  const cell = event.target.closest?.(".cell");
  const at = cell ? [Number(cell.dataset.x), Number(cell.dataset.y)] : null;
  const old = page.hand.hover;
  if (at && old && at[0] === old[0] && at[1] === old[1]) return;
  page.hand.hover = at;
  drawHand(page);
}

// The placement the pointer names: the chosen piece with its reference square under the
// pointer, or, when that is illegal, the legal one of that piece and orientation nearest
// to it that covers the square under the pointer.
function aimed(page) {
  const { hand, play, position } = page;
  if (!hand.piece || !hand.hover || !position) return null;
  const [x, y] = hand.hover;
  const problem = play.problem(position, hand.piece, hand.orientation, x, y);
  if (!problem) return { x, y, problem };
  const squares = play.squares(hand.piece, hand.orientation);
  let best = null;
  for (const [dx, dy] of squares) {
    const rx = x - dx, ry = y - dy;
    if (play.problem(position, hand.piece, hand.orientation, rx, ry)) continue;
    const distance = Math.abs(dx) + Math.abs(dy);
    if (!best || distance < best.distance) best = { x: rx, y: ry, problem: "", distance };
  }
  return best || { x, y, problem };
}

function drawHand(page) {
  const { find, hand, play, view, data } = page;
  for (const cell of view.root.querySelectorAll("[data-preview]")) delete cell.dataset.preview;
  drawReach(page);
  const chosen = find("chosen");
  drawPiece(chosen, hand.piece ? play.squares(hand.piece, hand.orientation) : []);
  chosen.dataset.piece = hand.piece || "";
  chosen.dataset.orientation = hand.orientation;
  find("rotate").disabled = find("flip").disabled = !hand.piece;
  const line = find("code-line");
  const target = aimed(page);
  const mine = myMove(page);
  if (!hand.piece) {
    line.textContent = page.left?.length ? "Choose a piece" : "All your pieces are placed";
    return;
  }
  if (!target) {
    line.textContent = `Piece ${hand.piece} · point at the board`;
    return;
  }
  const code = play.code(target.x, target.y, hand.piece, hand.orientation);
  for (const [dx, dy] of play.squares(hand.piece, hand.orientation)) {
    const cell = view.cells[(target.y + dy) * data.board.width + target.x + dx];
    const x = target.x + dx;
    if (cell && x >= 0 && x < data.board.width) cell.dataset.preview = target.problem ? "bad" : "ok";
  }
  page.aimedCode = target.problem || !mine ? null : code;
  line.dataset.code = code;
  line.textContent = target.problem ? `${code} · ${target.problem}`
    : mine ? `${code} · click to place` : `${code} · wait for your move`;
  line.classList.toggle("bad", Boolean(target.problem));
}

// The squares where the chosen piece, as it is turned, can go (some legal placement
// covers them), tinted on the board; drawn again only when the piece or the turn changes.
function drawReach(page) {
  const { hand, play, view, data } = page;
  const wanted = myMove(page) && hand.piece ? `${data.turn}:${hand.piece}:${hand.orientation}` : "";
  if (page.reachShown === wanted) return;
  page.reachShown = wanted;
  for (const cell of view.root.querySelectorAll("[data-reach]")) delete cell.dataset.reach;
  if (!wanted) return;
  for (const [x, y, piece, orientation] of page.legal) {
    if (piece !== hand.piece || orientation !== hand.orientation) continue;
    for (const [dx, dy] of play.squares(piece, orientation)) {
      view.cells[(y + dy) * data.board.width + x + dx].dataset.reach = "";
    }
  }
}

async function place(page) {
  const code = page.aimedCode;
  if (!code || page.sending) return;
  page.sending = true;
  const refusal = page.find("refusal");
  refusal.hidden = true;
  page.find("code-line").textContent = `${code} · sending…`;
  try {
    const response = await fetch(`/api/matches/${page.matchId}/actions`, {
      method: "POST", cache: "no-store",
      headers: { Authorization: `Bearer ${page.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ actions: [{ move: code }], turn: page.data.strategy_turn }),
    });
    if (response.status !== 202) {
      const body = await response.json().catch(() => ({}));
      refuse(refusal, `${code} refused: ${body.detail || body.error || `HTTP ${response.status}`}`);
    }
  } catch {
    refuse(refusal, `${code} was not sent: the server could not be reached.`);
  } finally {
    page.sending = false;
  }
  const answer = await readMatch(page.matchId, page.token).catch(() => null);
  if (answer?.status === 200) show(page, answer.body);
  drawHand(page);
}

function drawTray(page) {
  const { find, play, hand } = page;
  const tray = find("tray");
  tray.replaceChildren();
  for (const piece of play.pieces) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.piece = piece;
    const gone = !page.left.includes(piece);
    button.disabled = gone;
    button.className = `piece-button${piece === hand.piece ? " chosen" : ""}${gone ? " placed" : ""}`
      + `${!gone && !page.movable.has(piece) ? " stuck" : ""}`;
    button.setAttribute("aria-pressed", String(piece === hand.piece));
    button.title = gone ? `piece ${piece}: placed` : `piece ${piece}`;
    const picture = document.createElementNS(SVG, "svg");
    drawPiece(picture, play.squares(piece, piece === hand.piece ? hand.orientation : 0), false);
    const letter = document.createElement("span");
    letter.textContent = piece;
    button.append(picture, letter);
    button.addEventListener("click", () => {
      if (hand.piece !== piece) hand.orientation = 0;
      hand.piece = piece;
      drawTray(page);
      drawHand(page);
    });
    tray.append(button);
  }
}

// A piece as small squares, centred in a square of five (every piece at one scale), its
// reference square (the one its code names) marked if asked.
function drawPiece(svg, squares, reference = true) {
  svg.replaceChildren();
  const xs = squares.map(([x]) => x), ys = squares.map(([, y]) => y);
  const left = Math.min(0, ...xs), top = Math.min(0, ...ys);
  const width = Math.max(0, ...xs) - left + 1, height = Math.max(0, ...ys) - top + 1;
  svg.setAttribute("viewBox", `${left - (5 - width) / 2} ${top - (5 - height) / 2} 5 5`);
  for (const [x, y] of squares) {
    const square = document.createElementNS(SVG, "rect");
    Object.entries({ x: x + 0.06, y: y + 0.06, width: 0.88, height: 0.88, rx: 0.12 })
      .forEach(([name, value]) => square.setAttribute(name, value));
    if (reference && x === 0 && y === 0) square.setAttribute("class", "reference");
    svg.append(square);
  }
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
  page.find("sent").textContent = `Sent ${sent.actions.length} action`
    + `${sent.actions.length === 1 ? "" : "s"} for turn ${turn} ✓ (a later send replaces it)`;
  drawOrders(page);
}

function describePlan(page, action) {
  return action ? page.rules.describe(action) : "stays (nothing set)";
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
    button.textContent = `Agent ${agent} · ${at ? `(${at[0]}, ${at[1]})` : "off"}`;
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
  find("send").textContent = `Send ${count} action${count === 1 ? "" : "s"}`
    + (open ? ` for turn ${data.strategy_turn}` : "");
}

async function sendOrders(page) {
  const { orders, data, find } = page;
  const refusal = find("orders-refusal");
  refusal.hidden = true;
  page.sending = true;
  const actions = [...orders.plans.values()];
  try {
    const response = await fetch(`/api/matches/${page.matchId}/actions`, {
      method: "POST", cache: "no-store",
      headers: { Authorization: `Bearer ${page.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ actions, turn: data.strategy_turn }),
    });
    const body = await response.json().catch(() => ({}));
    if (response.status === 202) {
      orders.sentFor = data.strategy_turn;
      find("sent").textContent = `Sent ${actions.length} action${actions.length === 1 ? "" : "s"} `
        + `for turn ${data.strategy_turn} ✓ (a later send replaces it)`;
    } else {
      refuse(refusal, `Refused: ${body.detail || body.error || `HTTP ${response.status}`}`);
    }
  } catch {
    refuse(refusal, "Not sent: the server could not be reached.");
  } finally {
    page.sending = false;
    drawOrders(page);
  }
}

function tickCountdown(page) {
  const { data } = page;
  const box = page.find("countdown");
  let text;
  if (data.status === "finished") text = "";
  else if (data.strategy_turn && data.deadline) {
    text = `Turn ${data.strategy_turn} · ${formatCountdown(data.deadline - page.clock.now())} left`;
  } else if (data.deadline) {
    text = `Next turn in ${formatCountdown(data.deadline - data.strategy_ms - page.clock.now())}`;
  } else text = "";
  if (box.textContent !== text) box.textContent = text;
}
