// The play page: one seat's table (or a spectator's, or the host's), its legal moves as buttons,
// everything updated live from GET /games/{id}/stream. Built with textContent, never innerHTML.
import { t, tn } from "./i18n.js";
import { Attention } from "./attention.js";
import { Link } from "./liveness.js";
import { Rematch } from "./rematch.js";
import { Seats } from "./seats.js";
import { botWords, card, el, eventWords, kindOf, renderTable, scoreboard, statusWords, vaPlace, VP_COLOURS, vpColour, vrCard, vrLegend, VR_LETTERS, VR_SHAPES } from "./tables.js";

const data = JSON.parse(document.getElementById("play-data").textContent);
const $ = (id) => document.getElementById(id);
const root = $("play");
const urls = data.urls;
const FINAL = new Set(["finished", "aborted"]);

// -- who is looking: the token from the invitation link, kept in this tab only -------------

const SEAT_KEY = `gruft.play.${data.game_id}`;
const INVITES_KEY = `gruft.invites.${data.game_id}`;
const REMEMBERED_KEY = `gruft.seat.${data.game_id}`; // this device's seat, for a reopened address

function stored(storage, key) {
  try {
    return JSON.parse(storage.getItem(key) || "null");
  } catch {
    return null; // unreadable, or storage refused (private browsing)
  }
}

function keep(storage, key, value) {
  try {
    storage.setItem(key, JSON.stringify(value));
  } catch {
    /* private browsing: kept for this page only */
  }
}

// An invitation link carries a code, never a token (a browser's history keeps every address it
// opened): the code is exchanged, once, for the seat's credential, kept in this browser only.
async function acceptInvitation() {
  const address = new URL(window.location.href);
  const code = address.searchParams.get("invite");
  if (code === null) return;
  const opened = address.href;
  address.searchParams.delete("invite");
  window.history.replaceState(null, "", address);
  let response = null;
  try {
    response = await fetch(urls.accept, { method: "POST", body: JSON.stringify({ code }),
      headers: { Accept: "application/json", "Content-Type": "application/json" } });
  } catch (error) {
    window.history.replaceState(null, "", opened); // a reload tries again
    showProblem(t("Could not accept the invitation (%(problem)s): reload the page to try again.", { problem: error.message }));
    return;
  }
  const answer = await response.json().catch(() => ({}));
  if (response.ok) {
    const seat = { token: answer.token, role: answer.role, you: answer.player || null };
    keep(sessionStorage, SEAT_KEY, seat);
    keep(localStorage, REMEMBERED_KEY, seat);
    return;
  }
  const remembered = stored(localStorage, REMEMBERED_KEY);
  if (!stored(sessionStorage, SEAT_KEY) && remembered && remembered.token) {
    keep(sessionStorage, SEAT_KEY, remembered); // this browser took that seat before
  } else if (!stored(sessionStorage, SEAT_KEY)) {
    showProblem(t("That invitation link was used already, or the host made a new one: ask the host for a new link. You are watching as a spectator."));
  }
}

await acceptInvitation();

function readSeat() {
  const address = new URL(window.location.href);
  const given = address.searchParams.get("token");
  if (given !== null) {
    // Out of the address bar and history at once: a shared or bookmarked page never carries it.
    address.searchParams.delete("token");
    window.history.replaceState(null, "", address);
    if (data.seat && data.seat.role !== "invalid") {
      const seat = { token: given, role: data.seat.role, you: data.seat.you || null };
      keep(sessionStorage, SEAT_KEY, seat);
      keep(localStorage, REMEMBERED_KEY, seat);
      return seat;
    }
    showProblem(t("That invitation link is not valid for this game: you are watching as a spectator."));
    return null;
  }
  return stored(sessionStorage, SEAT_KEY);
}

const seat = readSeat();
const token = seat ? seat.token : null;
const host = Boolean(seat && seat.role === "host");
// The organiser may play a seat too (host_seat): their token then acts and sees as that seat, and
// the page is that seat's, with the host's panel.
const you = seat && (seat.role === "player" || host) ? seat.you || null : null;
root.dataset.role = host ? "host" : you ? "player" : "spectator";
if (you) root.dataset.you = you;

// -- receipts: the server's signed word on this seat's last accepted command (kept, offered) ----

const RECEIPT_KEY = `gruft.receipt.${data.game_id}.${you || ""}`;

function keepReceipt(receipt) {
  if (!receipt || !you) return;
  const kept = stored(localStorage, RECEIPT_KEY);
  if (kept && kept.version >= receipt.version) return;
  keep(localStorage, RECEIPT_KEY, receipt);
  offerReceipt(receipt);
}

function offerReceipt(receipt) {
  const link = $("receipt");
  if (!link || !receipt) return;
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  const file = new Blob([JSON.stringify(receipt, null, 2)], { type: "application/json" });
  link.href = URL.createObjectURL(file);
  link.download = `gruft-receipt-${data.game_id}-${receipt.version}.json`;
  link.dataset.version = String(receipt.version);
  link.hidden = false;
}
if (you) offerReceipt(stored(localStorage, RECEIPT_KEY)); // kept from an earlier visit

const game = {
  view: null,
  version: -1,
  moves: [],
  previews: null,
  movesVersion: null,
  movesAsked: 0,
  sending: false,
  awaiting: 0, // the version a sent command reached; the moves wait until the table shows it
  selected: new Set(), // Vampire Queen: cards picked to play together
  pick: { metamorphosis: null, direction: null }, // VampiRing: the move being tried
  poll: null,
  seen: new Set(), // event versions already in the log
  events: new Map(), // version -> event as this viewer may see it (the table marks the last)
};

function headers(json) {
  const h = { Accept: "application/json" };
  if (json) h["Content-Type"] = "application/json";
  if (token) h.Authorization = `Bearer ${token}`;
  return h;
}

async function getJSON(url) {
  const response = await fetch(url, { headers: headers(false), cache: "no-store" });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(errorText(body, response)), { status: response.status, body });
  return body;
}

function errorText(body, response) {
  const error = body && body.error;
  return error ? error.message : `${response.status} ${response.statusText}`;
}

function showProblem(text) {
  $("problem").textContent = text || "";
  $("problem").hidden = !text;
}

// -- the live connection: the stream, or polling when it is not there ----------------------

function viewUrl() {
  return you ? urls.view : urls.game;
}

function streamUrl() {
  const url = new URL(urls.stream, window.location.href);
  if (token) url.searchParams.set("token", token); // EventSource cannot send headers
  // Reconnecting after a drop: the first message brings every event since the version shown.
  if (game.version >= 0) url.searchParams.set("after", String(game.version));
  return url;
}

const link = new Link({
  url: streamUrl,
  heartbeat: data.heartbeat || 15,
  onMessage(message) {
    root.dataset.live = "stream";
    let body;
    try {
      body = JSON.parse(message.data);
    } catch {
      return;
    }
    for (const event of body.events || []) logEvent(event);
    if (body.view) takeMoves(body.view, body.legal_moves);
    if (body.view) applyView(body.view);
    keepReceipt(body.receipt);
  },
  onPresence(message) {
    try {
      seats.presence(JSON.parse(message.data).present || []);
    } catch {
      /* a malformed message changes nothing */
    }
  },
  onDown() {
    // Whatever the page shows may be out of date: say so, and offer no move until it is fresh.
    root.dataset.live = "offline";
    $("offline").hidden = false;
    seats.stop();
    game.movesVersion = null;
    refreshTurn();
    attention.turn(false, "");
  },
  onBack() {
    root.dataset.live = "stream";
    $("offline").hidden = true;
    refetch();
  },
  onNoStream: startPolling,
});

function connect() {
  link.open();
}

// Back online: everything the page shows is fetched again (the table, the log, the moves, the
// host's panel), not only what the stream brings.
async function refetch() {
  game.movesVersion = null;
  try {
    const view = await getJSON(viewUrl());
    await catchUpLog(view.version);
    game.version = -1; // drawn again even at the same version: the turn shown was in doubt
    applyView(view);
  } catch (error) {
    showProblem(t("Lost touch with the server: %(problem)s", { problem: error.message }));
    return;
  }
  showProblem("");
  drawHost();
  window.dispatchEvent(new CustomEvent("gruft:refetch"));
}

const offline = () => root.dataset.live === "offline";
const attention = new Attention($("attention"), document.title);
const seats = new Seats($("seats"), { you, host, hand: handSeat });
const rematch = new Rematch($("rematch"), { gameId: data.game_id, seat, url: urls.rematch, gamesUrl: urls.games,
  headers, problem: showProblem });

// A game that is over: its page looks now and then for a rematch somebody else started (the
// stream has ended; the view names the rematch).
function awaitRematch(view) {
  rematch.show(view);
  if (view.rematch || game.rematchLook) return;
  game.rematchLook = setTimeout(async () => {
    game.rematchLook = null;
    try {
      applyView(await getJSON(viewUrl()));
    } catch {
      awaitRematch(game.view); // asked again on the next look
    }
  }, 2000);
}

// Hand a seat to the server's bot, or take it back (bot null); the stream then shows it.
async function handSeat(name, bot) {
  const response = await fetch(`${urls.seats}${encodeURIComponent(name)}`, { method: "POST", headers: headers(true),
    body: JSON.stringify({ bot }) }).catch((error) => ({ ok: false, error }));
  if (!response.ok) {
    const body = response.json ? await response.json().catch(() => ({})) : {};
    showProblem(t("Could not change who plays %(name)s: %(problem)s", { name,
      problem: response.error ? response.error.message : errorText(body, response) }));
    return;
  }
  showProblem("");
  refetch();
}

// Clocks that wait for the table (docs/api.md, "When the clocks start"): the page says when
// they start, and the host may start them.
function drawClockNote(view) {
  const waiting = view.clocks_started === false && view.status === "in_progress";
  $("clock-note").hidden = !waiting;
  $("start-clocks").hidden = !waiting || !host;
}

$("start-clocks").addEventListener("click", async () => {
  const button = $("start-clocks");
  button.disabled = true;
  try {
    const response = await fetch(urls.clocks_start, { method: "POST", headers: headers(true) })
      .catch((error) => ({ ok: false, error }));
    const body = response.json ? await response.json().catch(() => ({})) : {};
    if (!response.ok) {
      showProblem(t("Could not start the clocks: %(problem)s", {
        problem: response.error ? response.error.message : errorText(body, response) }));
      return;
    }
    showProblem("");
    refetch(); // the public view answered; this page's own view follows
  } finally {
    button.disabled = false;
  }
});

function startPolling() {
  if (game.poll) return;
  root.dataset.live = "polling";
  const step = async () => {
    try {
      const view = await getJSON(viewUrl());
      if (view.version > game.version) await catchUpLog(view.version);
      applyView(view);
    } catch (error) {
      showProblem(t("Lost touch with the server: %(problem)s", { problem: error.message }));
    }
    if (!game.view || !FINAL.has(game.view.status)) game.poll = setTimeout(step, 1000);
  };
  step();
}

async function catchUpLog(upTo) {
  let after = Math.max(0, ...game.seen, 0);
  while (after < upTo) {
    const page = await getJSON(`${urls.game}/events?after=${after}&limit=200`);
    page.events.forEach(logEvent);
    if (page.next_after === null || page.next_after === undefined) break;
    after = page.next_after;
  }
}

// A command's answer may reach us before the stream's message: make sure the table follows.
function nudge(version) {
  setTimeout(async () => {
    if (game.version >= version) return;
    try {
      applyView(await getJSON(viewUrl()));
    } catch {
      /* the stream will bring it */
    }
  }, 2500);
}

// -- the view --------------------------------------------------------------------------------

function applyView(view) {
  if (view.version < game.version) return; // an older answer arriving late
  const changed = view.version !== game.version || !game.view || view.status !== game.view.status;
  game.view = view;
  game.version = view.version;
  if (!offline()) seats.show(view); // presence and clocks change without a new version
  drawClockNote(view);
  if (FINAL.has(view.status)) awaitRematch(view);
  if (!changed) return;
  root.dataset.status = view.status;
  root.dataset.version = String(view.version);
  $("status").textContent = statusWords(view.status);
  $("status").className = `status status-${view.status}`;
  drawTable();
  drawScores();
  drawResult();
  $("abort-form").hidden = !host || view.status !== "in_progress";
  if (FINAL.has(view.status)) {
    link.stop();
    clearTimeout(game.poll);
  }
  if (game.awaiting && view.version >= game.awaiting) game.awaiting = 0;
  refreshTurn();
  attention.turn(myTurn() && !offline(), turnPrompt());
}

// The table draws a full state (tables.js, shared with the replay viewer); a view has the
// public part and this seat's secrets: other hands become backs of the right number of cards.
function stateOf(view) {
  const pub = view.state;
  const backs = (sizes) => Object.fromEntries(view.players.map((p) => [p,
    p === you && view.private && view.private.hand ? view.private.hand : Array((sizes || {})[p] || 0).fill("?")]));
  const common = { players: view.players, options: view.options || data.options, scores: view.scores,
    winners: view.winners, finished: view.status !== "in_progress" };
  switch (kindOf(view.game)) {
    case "VoodooPrince":
      return { ...pub, ...common, hands: backs(pub.hand_sizes) };
    case "VampireQueen":
      return { ...common, phase: pub.phase, round: pub.round, start: pub.start_player, plays: pub.plays,
        slayer: pub.slayer_led, count: pub.count, high: pub.highest ? pub.highest.value : null,
        high_player: pub.highest ? pub.highest.player : null, barred: pub.barred,
        hands: backs(pub.hand_sizes), set_aside: [], minus_points: pub.minus_points,
        options: { ...common.options, phases: pub.phases } };
    case "Vampir":
      return { ...pub, ...common, hands: backs(pub.hand_sizes) };
    case "VampiRing": {
      const pending = {};
      for (const p of pub.submitted) {
        pending[p] = p === you && view.private && view.private.move ? view.private.move : {};
      }
      return { ...common, ring: pub.ring, homes: pub.homes, families: pub.vampires, blood: pub.blood,
        eliminated: pub.eliminated, pending, last_turn: pub.last_turn, turns_played: pub.turns_played };
    }
    default:
      return pub;
  }
}

function drawTable() {
  const view = game.view;
  // The event that made this version: the table marks what it did (a fight, a round's end).
  const event = game.events.get(view.version) || null;
  renderTable(view.game, $("table"), { state: stateOf(view), view, event }, {
    players: view.players,
    perspective: you || "\u0000nobody", // a spectator's or the host's table shows no hand
    open: false,
    options: view.options || data.options,
  });
  $("table").dataset.version = String(view.version);
  if (kindOf(view.game) === "VampiRing") markLandings();
}

function drawScores() {
  $("scoreboard").replaceChildren(...scoreboard(game.view, game.view.players, data, you));
}

function drawResult() {
  const v = game.view;
  const box = $("result");
  if (v.status === "in_progress") {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  if (v.status === "aborted") {
    box.textContent = t("The host aborted this game: nothing further is played, nobody wins.");
  } else if (v.winners.length) {
    const mine = you && v.winners.includes(you);
    box.textContent = mine ? t("You won! (%(winners)s)", { winners: v.winners.join(", ") })
      : tn("Game over: %(winners)s won.", "Game over: %(winners)s won.", v.winners.length, { winners: v.winners.join(", ") });
  } else {
    box.textContent = t("Game over: nobody won.");
  }
  $("replay-link").textContent = t("Watch the replay");
}

// -- the event log -------------------------------------------------------------------------------

function logEvent(event) {
  if (game.seen.has(event.version)) return;
  game.seen.add(event.version);
  game.events.set(event.version, event);
  if (game.events.size > 50) game.events.delete(game.events.keys().next().value);
  const d = event.data || {};
  const bits = [];
  if (d.player) bits.push(d.player);
  for (const [key, value] of Object.entries(d)) {
    if (key === "player" || value === null || typeof value === "object" || String(value).length > 24) continue;
    bits.push(`${fieldWords(key)} ${value}`);
  }
  for (const key of ["card", "cards"]) if (Array.isArray(d[key])) bits.push(d[key].join(" "));
  const item = el("li", { "data-version": event.version, "data-type": event.type },
    el("span", { class: "ev-no" }, String(event.version)),
    el("span", { class: "ev-text" }, el("strong", {}, words(event.type)), bits.length ? ` — ${bits.join(", ")}` : ""));
  const list = $("events");
  // Newest first, so the latest is always in sight on a phone (a late page of the log slots in).
  const older = [...list.children].find((li) => Number(li.dataset.version) < event.version);
  list.insertBefore(item, older || null);
  while (list.children.length > 200) list.lastElementChild.remove();
  if (event.version <= telling.upTo) telling.upTo = event.version - 1; // an older page slotted in
  tellLog();
}

// The log in plain words, as the replay viewer tells it and as this seat may see it: the server
// tells it from this viewer's redacted log. The last event's words can change with the next
// (who won the trick a card took), so each ask starts one event before the last one told.
const telling = { busy: false, again: false, upTo: 0 };

async function tellLog() {
  if (telling.busy) {
    telling.again = true;
    return;
  }
  telling.busy = true;
  try {
    do {
      telling.again = false;
      const answer = await getJSON(`${urls.narration}?after=${Math.max(0, telling.upTo - 1)}`);
      for (const told of answer.events) {
        const text = document.querySelector(`#events li[data-version="${told.version}"] .ev-text`);
        if (text) {
          text.textContent = told.text;
          text.parentElement.dataset.told = "true";
        }
        telling.upTo = Math.max(telling.upTo, told.version);
      }
    } while (telling.again);
  } catch {
    /* the terse words stay; the next event asks again */
  } finally {
    telling.busy = false;
  }
}

const FIELD_WORDS = {
  trump: t("trump"), phase: t("phase"), round: t("round"), turn: t("turn"), winner: t("winner"), taker: t("taker"),
  location: t("location"), colour: t("colour"), count: t("count"), reason: t("reason"), start: t("start"),
  dealer: t("dealer"), value: t("value"), forced: t("forced"), leader: t("leader"),
};
const fieldWords = (key) => FIELD_WORDS[key] || key.replace(/_/g, " ");
const words = eventWords;

// -- whose turn, and the moves -------------------------------------------------------------------

function myTurn() {
  const v = game.view;
  return Boolean(you && v && v.status === "in_progress" && v.to_act.includes(you));
}

function refreshTurn() {
  const v = game.view;
  if (!v) return;
  if (offline() && v.status === "in_progress") {
    // Never another's turn shown as the current one, nor ours as still open: we cannot know.
    setMoves([], null, "offline");
    $("prompt").textContent = t("Offline: reconnecting… the turn shown may be out of date.");
    $("turn-panel").hidden = !you;
    $("who").textContent = you ? t("you are %(name)s — offline", { name: you }) : t("offline");
    return;
  }
  if (!you) {
    $("turn-panel").hidden = true;
    const role = host ? t("host") : t("spectator");
    $("who").textContent = v.status === "in_progress" && v.to_act.length
      ? t("%(role)s — waiting for %(players)s", { role, players: v.to_act.join(", ") }) : role;
    return;
  }
  $("turn-panel").hidden = false;
  drawHand();
  if (v.status !== "in_progress") {
    setMoves([], null, "over");
    $("prompt").textContent = t("The game is over.");
    $("who").textContent = t("you are %(name)s", { name: you });
    return;
  }
  if (v.bots && v.bots[you]) {
    setMoves([], null, "bot");
    $("prompt").textContent = t("The server's bot plays your seat: take it back to play.");
    $("who").textContent = t("you are %(name)s — played by the bot", { name: you });
    return;
  }
  if (!myTurn()) {
    setMoves([], null, "waiting");
    const others = v.to_act.filter((p) => p !== you);
    $("prompt").textContent = others.length ? t("Waiting for %(players)s…", { players: others.join(", ") }) : t("Waiting…");
    $("who").textContent = t("you are %(name)s", { name: you });
    return;
  }
  $("who").textContent = t("you are %(name)s — your turn", { name: you });
  $("prompt").textContent = turnPrompt();
  if (game.awaiting) {
    setMoves(game.moves, game.previews, "sending");
    return;
  }
  if (game.movesVersion !== v.version) loadMoves();
  else if ($("moves").dataset.state !== "ready" || $("moves").dataset.version !== String(v.version)) {
    setMoves(game.moves, game.previews, "ready"); // the stream brought them (takeMoves)
  }
}

function turnPrompt() {
  const v = game.view;
  switch (kindOf(v.game)) {
    case "VoodooPrince":
      return v.state.trump === null && !v.state.trick.length && v.state.dealer === you
        ? t("Your turn: choose the trump colour.") : t("Your turn: play a card (tap it in your hand, or a button).");
    case "VampireQueen":
      return t("Your turn: play cards of one value (pick them in your hand, then Play), or pass.");
    case "Vampir":
      return v.state.step === "discard_or_hunt" ? t("You drew: discard a card or lay a hunt.") : t("Your turn: draw a card, or collect a location.");
    case "VampiRing":
      return t("Your move: pick a metamorphosis and a direction, see where your vampires land, then confirm.");
    default:
      return t("Your turn.");
  }
}

// A seat's stream message carries its legal moves: once this game is known to need no previews
// (VampiRing's come with /legal-moves only), they are taken from there, with no call of their own.
function takeMoves(view, moves) {
  if (!game.streamMoves || !Array.isArray(moves) || view.version <= game.version) return;
  game.movesAsked += 1; // an answer to an older ask is dropped
  game.moves = moves;
  game.previews = null;
  game.movesVersion = view.version;
}

async function loadMoves() {
  const asked = ++game.movesAsked;
  const version = game.view.version;
  setMoves([], null, "loading");
  try {
    const answer = await getJSON(urls.legal_moves);
    if (asked !== game.movesAsked || version !== game.view.version) return;
    game.moves = answer.moves;
    game.previews = answer.previews || null;
    game.movesVersion = version;
    game.streamMoves = !answer.previews; // a game whose moves need no preview takes the stream's
    setMoves(answer.moves, game.previews, "ready");
  } catch (error) {
    if (asked !== game.movesAsked) return;
    setMoves([], null, "error", error.message);
    // Asked again shortly: a move list lost to a dropped connection is never left unfetched.
    setTimeout(() => {
      if (asked === game.movesAsked && game.movesVersion === null && myTurn() && !offline()) loadMoves();
    }, 2000);
  }
}

function setMoves(moves, previews, state, message) {
  const box = $("moves");
  box.dataset.state = state;
  box.dataset.version = state === "ready" || state === "sending" ? String(game.movesVersion) : "";
  if (state === "loading" && box.childElementCount) {
    for (const b of box.querySelectorAll("button")) b.disabled = true;
    return;
  }
  const buttons = moves.map((move, i) => {
    const button = el("button", { type: "button", class: "move-btn", "data-move": JSON.stringify(move),
      "data-type": move.type }, ...moveLabel(move));
    button.disabled = state !== "ready";
    // VampiRing (VR-4: a move is final): a tap chooses the move and shows where it lands; only
    // the picker's Confirm sends it. Every other game's move button sends at once.
    button.addEventListener("click", () => (move.type === "move" ? tryMove(move) : send(move)));
    // No preview on hover: the preview above grows and moves these buttons under the pointer,
    // which then chose another move than the one tapped. Focus (keyboard) previews, as a tap does.
    if (previews && previews[i]) button.addEventListener("focus", () => tryMove(move));
    return button;
  });
  box.replaceChildren(...buttons);
  if (message) box.append(el("p", { class: "problem" }, message));
  drawPicker(state);
  drawHand();
}

function chips(cards) {
  return el("span", { class: "chips" }, cards.map((c) => card(data.game, c, "chip-card")));
}

const SHAPE = VR_SHAPES;
const CHANGE = { a: { M: "W", W: "B", B: "M" }, b: { M: "B", B: "W", W: "M" } };
const TURNING = { cw: t("clockwise ↻"), ccw: t("anticlockwise ↺") };

function moveLabel(move) {
  switch (move.type) {
    case "play":
      return [t("Play") + " ", chips(move.card ? [move.card] : move.cards)];
    case "pass":
      return [t("Pass")];
    case "choose_trump":
      return [t("Trump:") + " ", el("span", { class: `chip vp-${move.trump}` }, VP_COLOURS[move.trump] ? vpColour(move.trump) : move.trump)];
    case "draw":
      return [t("Draw a card")];
    case "discard":
      return move.location ? [t("Discard") + " ", chips([move.card]), " " + t("to the %(location)s", { location: vaPlace(move.location) })]
        : [t("Discard") + " ", chips([move.card])];
    case "hunt":
      return [t("Hunt at the %(location)s", { location: vaPlace(move.colour) }) + " ", chips(move.cards)];
    case "collect":
      return [t("Collect the %(location)s", { location: vaPlace(move.location) }), move.cards && move.cards.length ? [" " + t("with") + " ", chips(move.cards)] : ""];
    case "move":
      return [el("strong", {}, `${move.metamorphosis.toUpperCase()} `), `${changeWords(move.metamorphosis)}, ${TURNING[move.direction]}`,
        el("span", { class: "move-hint" }, " · " + t("see where it lands"))];
    default:
      return [JSON.stringify(move)];
  }
}

// The letters the table shows (VR_LETTERS), never the record's codes.
const changeWords = (m) => Object.entries(CHANGE[m]).map(([a, b]) => `${VR_LETTERS[a]}→${VR_LETTERS[b]}`).join(" ");

// -- sending a command ---------------------------------------------------------------------------

async function send(command) {
  if (game.sending) return;
  game.sending = true;
  hideRefusal();
  setMoves(game.moves, game.previews, "sending");
  try {
    const response = await fetch(urls.commands, { method: "POST", headers: headers(true), body: JSON.stringify(command) });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      showRefusal(body.error || { code: String(response.status), message: response.statusText });
      game.movesVersion = null; // ask again: the table may have moved on
    } else {
      game.awaiting = body.version;
      keepReceipt(body.receipt);
      game.selected.clear();
      game.pick = { metamorphosis: null, direction: null };
      nudge(body.version);
    }
  } catch (error) {
    showRefusal({ code: "network", message: error.message });
    game.movesVersion = null;
  } finally {
    game.sending = false;
    if (game.awaiting && game.version >= game.awaiting) game.awaiting = 0;
    refreshTurn();
  }
}

function showRefusal(error) {
  const box = $("refusal");
  box.dataset.code = error.code || "";
  box.dataset.rule = error.rule || "";
  box.replaceChildren(
    el("strong", {}, error.rule ? withRuleLink(t("Refused — ruling %(rule)s", { rule: error.rule }), error.rule) : t("Refused")),
    el("span", { class: "refusal-message" }, ` ${error.message}`),
  );
  box.hidden = false;
}

// The ruling's id in a sentence becomes a link to its text on the game's rules page.
function ruleLink(rule) {
  return el("a", { class: "rule-link", "data-rule": rule, href: `${urls.rules}#${rule.toLowerCase()}`,
    target: "_blank", rel: "noopener", title: t("Read ruling %(rule)s", { rule }) }, rule);
}

function withRuleLink(sentence, rule) {
  const at = sentence.indexOf(rule);
  if (at < 0) return [sentence, " ", ruleLink(rule)];
  return [sentence.slice(0, at), ruleLink(rule), sentence.slice(at + rule.length)];
}

function hideRefusal() {
  $("refusal").hidden = true;
  $("refusal").replaceChildren();
}

// -- your hand: tap to play (Voodoo Prince), pick and play (Vampire Queen) ---------------------

function drawHand() {
  const box = $("my-hand");
  const v = game.view;
  const hand = v && v.private && v.private.hand;
  if (!hand) {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const ready = $("moves").dataset.state === "ready" && myTurn();
  // Cards some legal move plays stand out; the others can still be tried (and are refused
  // with their ruling).
  const legal = new Set(ready ? game.moves.flatMap((m) => (m.card ? [m.card] : m.cards || [])) : []);
  const kind = kindOf(v.game);
  const cards = hand.map((code, i) => {
    if (kind !== "VoodooPrince" && kind !== "VampireQueen") {
      return el("span", { class: "hand-card", "data-card": code }, card(v.game, code));
    }
    const picked = kind === "VampireQueen" && game.selected.has(i);
    const button = el("button", { type: "button", class: `hand-card${picked ? " picked" : ""}${legal.has(code) ? " legal" : ""}`, "data-card": code,
      "aria-pressed": kind === "VampireQueen" ? String(picked) : null, title: code }, card(v.game, code));
    button.disabled = !ready;
    button.addEventListener("click", () => {
      if (kind === "VoodooPrince") send({ type: "play", card: code });
      else if (kind === "VampireQueen") {
        if (game.selected.has(i)) game.selected.delete(i);
        else game.selected.add(i);
        drawHand();
      }
    });
    return button;
  });
  const parts = [el("h2", {}, t("Your hand (%(n)s)", { n: hand.length })), el("div", { class: "hand-cards" }, cards)];
  if (kind === "VampireQueen" && myTurn()) {
    const chosen = [...game.selected].sort((a, b) => a - b).map((i) => hand[i]).filter(Boolean);
    const play = el("button", { type: "button", id: "play-selected", class: "primary" },
      chosen.length ? [t("Play") + " ", chips(chosen)] : t("Pick cards to play"));
    play.disabled = !ready || !chosen.length;
    play.addEventListener("click", () => send({ type: "play", cards: chosen }));
    parts.push(el("div", { class: "compose" }, play));
  }
  box.replaceChildren(...parts);
}

// -- VampiRing: try a metamorphosis and a direction, see the landings, confirm -----------------

function drawPicker(state) {
  const box = $("picker");
  if (kindOf(data.game) !== "VampiRing" || !myTurn() || !game.previews) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.hidden = false;
  const ready = state === "ready";
  const own = game.view.state.vampires[you] || {};
  const group = (label, choices, key) => el("div", { class: "pick-group", role: "group", "aria-label": label },
    el("span", { class: "pick-label" }, label),
    choices.map(([value, text]) => {
      const button = el("button", { type: "button", class: `pick${game.pick[key] === value ? " chosen" : ""}`,
        "data-pick": key, "data-value": value, "aria-pressed": String(game.pick[key] === value) }, text);
      button.disabled = !ready;
      button.addEventListener("click", () => {
        game.pick[key] = value;
        drawPicker($("moves").dataset.state);
        markLandings();
      });
      return button;
    }));
  const shapes = Object.values(own).map((v) => v.shape);
  const meta = (m) => shapes.map((s) => `${SHAPE[s]}→${SHAPE[CHANGE[m][s]]}`).filter((x, i, all) => all.indexOf(x) === i).join(", ");
  const chosen = chosenMove();
  const confirm = el("button", { type: "button", id: "confirm", class: "primary" },
    chosen ? [t("Confirm") + " ", el("strong", {}, `${chosen.metamorphosis.toUpperCase()} ${TURNING[chosen.direction]}`)] : t("Pick both to confirm"));
  confirm.disabled = !ready || !chosen;
  confirm.addEventListener("click", () => chosen && send(chosen));
  const preview = previewOf(chosen);
  const summary = preview ? el("ul", { class: "landing-list" }, Object.entries(preview.vampires).map(([vid, v]) => el("li", {
    "data-id": vid, "data-position": v.position },
  v.path.length > 2
    ? t("%(shape)s lands on #%(position)s (%(card)s), via %(path)s", { shape: SHAPE[v.shape], position: v.position,
      card: cardName(v.position), path: v.path.slice(1, -1).map((p) => `#${p}`).join(" ") })
    : t("%(shape)s lands on #%(position)s (%(card)s)", { shape: SHAPE[v.shape], position: v.position, card: cardName(v.position) })))) : null;
  box.replaceChildren(...[ // replaceChildren would show a missing summary as the word "null"
    group(t("Metamorphosis"), [["a", `A: ${meta("a")}`], ["b", `B: ${meta("b")}`]], "metamorphosis"),
    group(t("Direction"), [["cw", TURNING.cw], ["ccw", TURNING.ccw]], "direction"),
    summary, el("div", { class: "compose" }, confirm)].filter(Boolean));
}

function chosenMove() {
  const { metamorphosis, direction } = game.pick;
  if (!metamorphosis || !direction) return null;
  return game.moves.find((m) => m.metamorphosis === metamorphosis && m.direction === direction) || null;
}

function previewOf(move) {
  if (!move || !game.previews) return null;
  const i = game.moves.indexOf(move);
  return i >= 0 ? game.previews[i] : null;
}

function cardName(position) {
  const c = game.view.state.ring[position];
  return c.startsWith("home:") ? t("%(name)s's Home", { name: c.slice(5) }) : vrCard(c);
}

function tryMove(move) {
  game.pick = { metamorphosis: move.metamorphosis, direction: move.direction };
  drawPicker($("moves").dataset.state);
  markLandings();
}

// Where the chosen move would put each vampire: dark pawns on the ring, as in the original.
function markLandings() {
  for (const old of document.querySelectorAll("#table .landing, #table .ring-card.path")) {
    if (old.classList.contains("landing")) old.remove();
    else old.classList.remove("path", "landing-card");
  }
  if (!myTurn()) return;
  const preview = previewOf(chosenMove());
  if (!preview) return;
  for (const [vid, v] of Object.entries(preview.vampires)) {
    for (const position of v.path.slice(1, -1)) {
      const passed = document.querySelector(`#table .ring-card[data-position="${position}"]`);
      if (passed) passed.classList.add("path");
    }
    const target = document.querySelector(`#table .ring-card[data-position="${v.position}"]`);
    if (!target) continue;
    target.classList.add("path", "landing-card");
    target.querySelector(".tokens").append(el("span", { class: "vampire landing", "data-id": vid, "data-shape": v.shape,
      title: t("your %(shape)s would land here", { shape: SHAPE[v.shape] }) }, VR_LETTERS[v.shape] || v.shape));
  }
}

// -- the host: their own link, invitations and abort --------------------------------------------

// A field showing a link, with a button copying it (or selecting it where copying is not allowed).
function linkField(url, label, attrs = {}) {
  const field = el("input", { class: "invite-url", readonly: true, value: url, "aria-label": label, ...attrs });
  field.addEventListener("focus", () => field.select());
  const copy = el("button", { type: "button", class: "copy" }, t("Copy link"));
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(url); // only on https or localhost
      copy.textContent = t("Copied");
    } catch {
      field.focus(); // selected: the phone's or the keyboard's own copy takes it
      copy.textContent = t("Selected: copy it");
    }
  });
  return [field, copy];
}

// The host's own link opens this page as the host on another device, once (it carries a code,
// never the host token); this browser keeps the host's seat itself.
function drawHostLink(link) {
  // The replay so far: the token goes in a form's field, never in the viewer's address.
  const replay = el("form", { method: "post", action: urls.viewer, target: "_blank", class: "replay-form" },
    el("input", { type: "hidden", name: "token", value: token }),
    el("button", { type: "submit", "data-host-replay": "" }, t("Replay (host only)")));
  if (!link) {
    $("host-link").replaceChildren(replay);
    return;
  }
  const again = el("button", { type: "button", class: "reissue", "data-reissue-host": "" }, t("New link"));
  again.addEventListener("click", () => reissue([], true));
  $("host-link").replaceChildren(
    el("p", { class: "hint" }, t("Your host link opens this page as the host on another device, once; then make a new one here. This browser keeps your seat by itself.")),
    el("div", { class: "invite" }, ...linkField(link.url, t("your host link"), { "data-host-link": "" }), again,
      link.qr ? el("details", { class: "qr" }, el("summary", {}, t("QR code")),
        el("img", { src: link.qr, alt: t("QR code of your host link"), width: 180, height: 180 })) : null),
    replay);
}

function invitesKept() {
  const kept = stored(sessionStorage, INVITES_KEY) || stored(localStorage, INVITES_KEY);
  // Links are this game's only (a rematch's page starts from a copy of the game before's).
  if (kept && kept.links && kept.links.game !== data.game_id) delete kept.links;
  return kept;
}

function keepInvites(kept) {
  keep(sessionStorage, INVITES_KEY, kept);
  keep(localStorage, INVITES_KEY, kept);
}

// POST /games/{id}/invitations: new links for `players` (and the host's own); earlier ones die.
async function askInvitations(request) {
  const response = await fetch(urls.invitations, { method: "POST", headers: headers(true), body: JSON.stringify(request) });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(errorText(body, response));
  return body;
}

// A lost or misdirected link: a new one for that seat (or the host's); the old one stops working.
async function reissue(players, hostLink) {
  const kept = invitesKept() || { bots: {} };
  try {
    const answer = await askInvitations({ players, host: hostLink });
    const links = kept.links || { invitations: [] };
    const fresh = new Set(players);
    links.invitations = links.invitations.filter((i) => !fresh.has(i.player)).concat(answer.invitations);
    if (answer.host) links.host = answer.host;
    kept.links = { ...links, game: data.game_id };
    keepInvites(kept);
  } catch (error) {
    showProblem(t("Could not make the invitation links: %(problem)s", { problem: error.message }));
  }
  drawHost();
}

async function drawHost() {
  if (!host) return;
  $("host-panel").hidden = false;
  const kept = invitesKept() || { bots: {} };
  const bots = kept.bots || {};
  const humans = data.players.filter((p) => !bots[p] && p !== you);
  const tokens = humans.map((p) => (kept.player_tokens || {})[p]).filter(Boolean);
  if (!kept.links) {
    // Made once and kept: asking again kills them. The browser that created the game names the
    // seats by their tokens; elsewhere only the host's link is made (the last one was used to
    // get here, or is dead), and the seats' links on demand.
    try {
      kept.links = { ...(await askInvitations({ tokens, host: true })), game: data.game_id };
      keepInvites(kept);
    } catch (error) {
      showProblem(t("Could not make the invitation links: %(problem)s", { problem: error.message }));
    }
  }
  const links = kept.links || { invitations: [] };
  drawHostLink(links.host);
  $("loopback-note").hidden = !links.loopback;
  // Issue 33, item 3: the page opened at 0.0.0.0, or a public address the server is not at.
  $("unreachable-note").hidden = !links.unreachable || !!links.loopback;
  const made = new Set(links.invitations.map((i) => i.player));
  if (humans.some((p) => !made.has(p))) {
    const make = el("button", { type: "button", class: "reissue", "data-reissue-all": "" }, t("Make new invitation links (any sent before stop working)"));
    make.addEventListener("click", () => reissue(humans, false));
    $("invite-note").replaceChildren(t("The invitation links are shown only in the browser that created the game: the server keeps no token, only its fingerprint."), " ", make);
  } else {
    $("invite-note").textContent = t("Send each player their own link (or let them scan its code). Anyone with a link plays that seat; without one, the page shows the table to watch.");
  }
  const byPlayer = Object.fromEntries(links.invitations.map((i) => [i.player, i]));
  $("invitations").replaceChildren(...data.players.map((p) => {
    if (bots[p]) {
      return el("li", { class: "invite bot", "data-player": p }, el("span", { class: "invite-name" }, p),
        el("span", { class: "badge" }, t("played by the server (%(bot)s)", { bot: botWords(bots[p]) })));
    }
    if (p === you) {
      return el("li", { class: "invite mine", "data-player": p }, el("span", { class: "invite-name" }, p),
        el("span", { class: "badge" }, t("your seat")));
    }
    const again = el("button", { type: "button", class: "reissue", "data-reissue": p }, t("New link"));
    again.addEventListener("click", () => reissue([p], false));
    const inv = byPlayer[p];
    if (!inv) return el("li", { class: "invite", "data-player": p }, el("span", { class: "invite-name" }, p), again);
    return el("li", { class: "invite", "data-player": p },
      el("span", { class: "invite-name" }, p),
      el("a", { class: "invite-link", href: inv.url, "data-invite": p, target: "_blank", rel: "noopener noreferrer" }, t("open as %(name)s", { name: p })),
      ...linkField(inv.url, t("%(name)s's invitation link", { name: p })), again,
      el("details", { class: "qr" }, el("summary", {}, t("QR code")),
        el("img", { src: inv.qr, alt: t("QR code of %(name)s's invitation link", { name: p }), width: 180, height: 180, "data-qr": p })));
  }));
}

$("abort-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const reason = $("abort-reason").value.trim();
  if (!reason) return;
  const response = await fetch(urls.abort, { method: "POST", headers: headers(true), body: JSON.stringify({ reason }) });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) showProblem(t("Could not abort: %(problem)s", { problem: errorText(body, response) }));
  else applyView(body);
});

// -- a reopened address: no token in it, none kept in this tab ------------------------------------

function drawSpectatorHint() {
  const box = $("spectator-hint");
  if (seat || FINAL.has(data.status)) return;
  const remembered = stored(localStorage, REMEMBERED_KEY);
  if (remembered && remembered.token) {
    const name = remembered.role === "host" ? t("the host") : remembered.you;
    const back = el("button", { type: "button", id: "back-to-seat", class: "primary" }, t("Back to my seat"));
    back.addEventListener("click", () => {
      keep(sessionStorage, SEAT_KEY, remembered);
      window.location.reload();
    });
    box.replaceChildren(el("span", {}, t("You are watching. This browser took part in this game as %(name)s.", { name })), " ", back);
  } else {
    box.replaceChildren(t("You are watching: no hand is shown and you cannot move. To play your seat, open your own invitation link again (the host can send it to you); to host, open your host link."));
  }
  box.hidden = false;
}

// -- start ----------------------------------------------------------------------------------------

drawSpectatorHint();
if (kindOf(data.game) === "VampiRing") {
  $("card-help").append(vrLegend(urls.rules));
  $("card-help").hidden = false;
}

$("who").textContent = you ? t("you are %(name)s", { name: you }) : host ? t("host") : t("spectator");
drawHost();
getJSON(viewUrl()).then(async (view) => {
  applyView(view);
  connect();
  await catchUpLog(view.version).catch(() => {});
}).catch((error) => {
  showProblem(t("Could not load the game: %(problem)s", { problem: error.message }));
  connect();
});
