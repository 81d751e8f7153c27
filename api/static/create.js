// The game list's form to start a game: POST /games, then the host's play page with the links.
// The creation answer (host and player tokens) is kept in this browser only (hosting.js).
import { t } from "./i18n.js";
import { keepHosting } from "./hosting.js";
import { botWords, el } from "./tables.js";

const setup = JSON.parse(document.getElementById("new-game-data").textContent);
const $ = (id) => document.getElementById(id);
const NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kai", "Lu"];

// The games' options in words (their keys stay the API's).
const OPTION_WORDS = { phases: t("phases"), rounds: t("rounds"), variant: t("variant"), max_turns: t("most turns") };
const CHOICE_WORDS = { castle: t("castle"), mansion: t("mansion") };

function chosen() {
  return setup.games[$("new-game-key").value];
}

// Rows are added and removed at the end, never redrawn: a name being typed (or the field just
// clicked, whose click blurred the count and so changed it) stays where it is.
const removed = []; // rows taken off the end, given back when the count grows again

function seatRow(i) {
  const back = removed[i];
  const name = el("input", { name: `player-${i}`, "data-seat": i, maxlength: 40, required: true,
    value: back ? back.name : NAMES[i], "aria-label": t("name of seat %(n)s", { n: i + 1 }) });
  const who = el("select", { name: `bot-${i}`, "data-seat-bot": i, "aria-label": t("who plays seat %(n)s", { n: i + 1 }) },
    el("option", { value: "" }, t("a person (invitation link)")),
    setup.bots.map((kind) => el("option", { value: kind }, t("the server: %(kind)s bot", { kind: botWords(kind) }))));
  who.value = back ? back.who : "";
  name.addEventListener("input", drawHostSeat);
  who.addEventListener("change", drawHostSeat);
  return el("li", {}, name, who);
}

function drawSeats() {
  const g = chosen();
  const count = $("new-seat-count");
  count.min = String(g.min_players);
  count.max = String(g.max_players);
  const n = Math.max(g.min_players, Math.min(g.max_players, Number(count.value) || g.min_players));
  if (count.value !== String(n)) count.value = String(n);
  const list = $("new-seats");
  while (list.children.length > n) {
    const li = list.lastElementChild;
    removed[list.children.length - 1] = { name: li.querySelector("input").value, who: li.querySelector("select").value };
    li.remove();
  }
  while (list.children.length < n) list.append(seatRow(list.children.length));
  drawHostSeat();
}

// The organiser may play one of the seats a person plays (host_seat), or only host.
function drawHostSeat() {
  const box = $("new-host-seat");
  if (!box) return;
  const before = box.value;
  const people = [...$("new-seats").children]
    .filter((li) => !li.querySelector("select").value)
    .map((li) => li.querySelector("input").value.trim()).filter(Boolean);
  box.replaceChildren(el("option", { value: "" }, t("nobody: I only host")),
    ...people.map((name) => el("option", { value: name }, name)));
  box.value = people.includes(before) ? before : "";
}

// A few clocks (each seat's bank, and what each move adds), in seconds.
const CLOCKS = [
  null,
  { bank: 180, increment: 5 },
  { bank: 600, increment: 10 },
  { bank: 1800, increment: 30 },
  { bank: 86400, increment: 3600 },
];

function clockWords(clock) {
  if (!clock) return t("no clock");
  const span = (s) => (s >= 3600 ? t("%(n)s h", { n: s / 3600 }) : s >= 60 ? t("%(n)s min", { n: s / 60 }) : t("%(n)s s", { n: s }));
  return t("%(bank)s each, + %(increment)s a move", { bank: span(clock.bank), increment: span(clock.increment) });
}

function drawClocks() {
  const box = $("new-clock");
  if (!box) return;
  box.replaceChildren(...CLOCKS.map((clock, i) => el("option", { value: String(i) }, clockWords(clock))));
}

function drawOptions() {
  const g = chosen();
  const short = $("new-short").checked;
  const fields = Object.entries(g.options).map(([name, o]) => {
    const value = short && name in g.short_options ? g.short_options[name] : o.default;
    let input;
    if (o.choices.length) {
      input = el("select", { name, "data-option": name }, o.choices.map((c) => el("option", { value: c }, CHOICE_WORDS[c] || c)));
      input.value = value;
    } else {
      input = el("input", { type: "number", inputmode: "numeric", name, "data-option": name, min: o.low, max: o.high,
        value: value === null ? "" : value, placeholder: o.nullable ? t("no limit") : "", required: !o.nullable });
    }
    return el("label", {}, OPTION_WORDS[name] || name.replace("_", " "), input);
  });
  $("new-options").replaceChildren(...fields);
  $("new-options-box").hidden = !fields.length;
}

function body() {
  const players = [];
  const bots = {};
  for (const li of $("new-seats").children) {
    const name = li.querySelector("input").value.trim();
    players.push(name);
    const who = li.querySelector("select").value;
    if (who) bots[name] = who;
  }
  const options = {};
  for (const input of $("new-options").querySelectorAll("[data-option]")) {
    const o = chosen().options[input.dataset.option];
    if (o.choices.length) options[input.dataset.option] = input.value;
    else options[input.dataset.option] = input.value === "" ? null : Number(input.value);
  }
  const answer = { game: $("new-game-key").value, players, options };
  // Each only when asked: a server without the field refuses it.
  if (Object.keys(bots).length) answer.bots = bots;
  const clock = $("new-clock") ? CLOCKS[Number($("new-clock").value)] : null;
  if (clock) answer.clock = clock;
  const hostSeat = $("new-host-seat") ? $("new-host-seat").value : "";
  if (hostSeat) answer.host_seat = hostSeat;
  return answer;
}

function problem(text) {
  $("create-problem").textContent = text || "";
  $("create-problem").hidden = !text;
}

$("create-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  problem("");
  const request = body();
  $("create").disabled = true;
  try {
    const response = await fetch(setup.create_url, { method: "POST", body: JSON.stringify(request),
      headers: { "Content-Type": "application/json", Accept: "application/json" } });
    const answer = await response.json().catch(() => ({}));
    if (response.status !== 201) {
      problem(answer.error ? answer.error.message : `${response.status} ${response.statusText}`);
      return;
    }
    keepHosting(answer, request.bots, request.host_seat || null);
    window.location.assign(`${setup.games_url}${encodeURIComponent(answer.game_id)}/play`);
  } catch (error) {
    problem(t("Could not reach the server: %(problem)s", { problem: error.message }));
  } finally {
    $("create").disabled = false;
  }
});

$("new-game-key").addEventListener("change", () => { drawSeats(); drawOptions(); });
$("new-seat-count").addEventListener("change", drawSeats);
$("new-short").addEventListener("change", drawOptions);
drawSeats();
drawOptions();
drawClocks();
