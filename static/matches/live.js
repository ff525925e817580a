// The live stream of one match: a snapshot, then one "turn" message per transition.
// The turn number is the version: a gap makes the client reconnect with ?since=N
// and receive exactly the turns it missed; it never guesses.

export class MatchStream {
  constructor(matchId, handlers) {
    this.matchId = matchId;
    this.handlers = handlers;
    this.turn = null; // the last turn applied; null until the snapshot
    this.retry = 500;
    this.socket = null;
    this.closed = false;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const since = this.turn === null ? "" : `?since=${this.turn}`;
    return `${scheme}://${location.host}/ws/matches/${this.matchId}/${since}`;
  }

  connect() {
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.onopen = () => {
      this.retry = 500;
      this.emit("onStatus", "connected");
    };
    socket.onmessage = (event) => this.receive(JSON.parse(event.data));
    socket.onclose = () => {
      if (this.socket !== socket || this.closed) return;
      this.emit("onStatus", "reconnecting");
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 5000);
    };
  }

  receive(message) {
    switch (message.type) {
      case "snapshot":
        this.turn = message.turn;
        this.emit("onSnapshot", message);
        if (message.match.board.secret) this.revealAtStart(message);
        break;
      case "turn":
        if (this.turn !== null && message.turn <= this.turn) return;
        if (this.turn !== null && message.turn > this.turn + 1) {
          this.socket.close(); // a gap: ask again from the last turn we have
          return;
        }
        this.turn = message.turn;
        this.emit("onTurn", message);
        break;
      case "step": // a game played step by step (CHaser): a step of the coming turn
        if (this.turn !== null && message.turn === this.turn + 1) this.emit("onStep", message);
        break;
      case "end":
        this.emit("onEnd", message);
        break;
      case "control": // the judges paused, resumed or extended it: its new timing
        this.emit("onControl", message);
        break;
      case "notices": // the judges' announcements to everyone, as they are now
        this.emit("onNotices", message.notices);
        break;
      case "viewers":
        this.emit("onViewers", message.count);
        break;
      case "next_game": // a later game of the match was made: the match's games, in order
        this.emit("onNextGame", message.games);
        break;
    }
  }

  // A board kept secret until the start comes with the snapshot sent after it: ask for
  // a fresh one (no since) a moment after the start, by the server's clock.
  revealAtStart(snapshot) {
    clearTimeout(this.revealing);
    const wait = Math.max(snapshot.match.start_at - snapshot.server_time, 0) + 300;
    this.revealing = setTimeout(() => {
      if (this.closed || !this.socket) return;
      this.turn = null;
      this.socket.close();
    }, wait);
  }

  emit(name, value) {
    if (this.handlers[name]) this.handlers[name](value);
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
  }
}
