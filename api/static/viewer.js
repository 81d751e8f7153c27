// The replay viewer: steps through a game with GET /games/{id}/replay/{n} and draws the table.
// Everything shown is built with textContent (never innerHTML): names and cards come from users.
import { localTime, pt, t, tn } from "./i18n.js";
import { keepHosting } from "./hosting.js";
import { el, eventWords, renderTable, scoreboard } from "./tables.js";

const data = JSON.parse(document.getElementById("viewer-data").textContent);
const $ = (id) => document.getElementById(id);
const total = data.version;
const view = {
  step: 0,
  perspective: "",
  playing: false,
  timer: null,
  request: 0, // the latest step asked for; older answers arriving late are dropped
  cache: new Map(),
  player: "", // the find filters: events this player made or is named in (data.events[].players)
  type: "",
  annotations: data.annotations || [],
};
const NEAR = 5; // events either side of the step that a printout tells in words

// Keep the token out of the address bar and history: a shared ?step= link must never carry it.
const address = new URL(window.location.href);
if (address.searchParams.has("token")) {
  address.searchParams.delete("token");
  window.history.replaceState(null, "", address);
}

function clamp(n) {
  return Math.max(0, Math.min(total, Number.isFinite(n) ? Math.trunc(n) : 0));
}

function fetchStep(n) {
  if (!view.cache.has(n)) {
    const headers = { Accept: "application/json" };
    if (data.token) headers.Authorization = `Bearer ${data.token}`;
    const answer = fetch(data.replay_url + n, { headers }).then(async (response) => {
      const body = await response.json().catch(() => ({}));
      if (!response.ok) {
        view.cache.delete(n);
        const message = body.error ? body.error.message : response.statusText;
        throw new Error(t("step %(n)s: %(problem)s (%(status)s)", { n, problem: message, status: response.status }));
      }
      return body;
    });
    view.cache.set(n, answer);
  }
  return view.cache.get(n);
}

function eventText(event) {
  if (view.perspective && event.seen && event.seen[view.perspective]) {
    return event.seen[view.perspective];
  }
  return event.text;
}

// -- the event list ------------------------------------------------------------------------

const items = data.events.map((event) => {
  const item = el("li", { "data-version": event.version, "data-type": event.type },
    el("span", { class: "ev-no" }, String(event.version)),
    el("span", { class: "ev-text" }, eventText(event)));
  item.addEventListener("click", () => { pause(); go(event.version); });
  return item;
});
$("events").replaceChildren(...items);
// The type filter names each type in words (its value stays the type).
for (const option of $("filter-type").options) if (option.value) option.textContent = eventWords(option.value);
const NOTE_KINDS = { note: t("note"), ruling: t("ruling") };

// -- finding: filters, matches, the starts of rounds, phases, tricks and turns ---------------

function matches(event) {
  return (!view.player || (event.players || []).includes(view.player))
    && (!view.type || event.type === view.type);
}

function applyFilters() {
  const filtering = Boolean(view.player || view.type);
  let count = 0;
  data.events.forEach((event, i) => {
    const hit = matches(event);
    if (hit) count += 1;
    items[i].classList.toggle("filtered-out", filtering && !hit);
    items[i].classList.toggle("match", filtering && hit);
  });
  $("match-count").textContent = filtering ? tn("%(count)s of %(n)s event", "%(count)s of %(n)s events", total, { count }) : "";
  $("prev-match").disabled = $("next-match").disabled = !filtering || count === 0;
  document.body.classList.toggle("filtering", filtering);
}

function findMatch(from, direction) {
  for (let n = from + direction; n >= 1 && n <= total; n += direction) {
    if (matches(data.events[n - 1])) return n;
  }
  return null;
}

function showJump() {
  // The select names the unit the current step is in: the last start at or before it.
  let chosen = "";
  for (const option of $("jump").options) {
    if (option.value !== "" && Number(option.value) <= view.step) chosen = option.value;
  }
  $("jump").value = chosen;
}

// -- annotations: the arbiter's notes and rulings, shown at their step ----------------------

function noteItem(note, withStep) {
  const item = el("li", { class: `note-item kind-${note.kind}`, "data-version": note.version, "data-id": note.id },
    el("span", { class: "note-kind" }, NOTE_KINDS[note.kind] || note.kind),
    withStep ? el("span", { class: "note-step" }, t("step %(n)s", { n: note.version })) : null,
    el("span", { class: "note-text" }, note.text),
    el("span", { class: "note-meta" }, (note.author === "host" ? t("host") : note.author) + ", " + (note.timestamp ? localTime(note.timestamp) : "")),
    // A copy's own notes are its host's, never the original game's (docs/api.md, origin).
    data.origin && note.game_id === data.game_id
      ? el("span", { class: "note-copy" }, t("made on this copy, not in the original's record")) : null);
  if (withStep) item.addEventListener("click", () => { pause(); go(note.version); });
  return item;
}

function drawAnnotations() {
  const byStep = new Map();
  for (const note of view.annotations) {
    if (!byStep.has(note.version)) byStep.set(note.version, []);
    byStep.get(note.version).push(note);
  }
  data.events.forEach((event, i) => {
    const old = items[i].querySelector(".ev-notes");
    if (old) old.remove();
    const notes = byStep.get(event.version);
    if (notes) {
      items[i].append(el("span", { class: "ev-notes", title: tn("%(n)s note at this step", "%(n)s notes at this step", notes.length) },
        `✎ ${notes.length}`));
    }
  });
  const all = view.annotations.map((note) => noteItem(note, true));
  $("all-notes").replaceChildren(...(all.length
    ? [el("h2", {}, t("Notes and rulings")), el("ol", { class: "notes" }, all)] : []));
  showNotes();
}

function showNotes() {
  const here = view.annotations.filter((note) => note.version === view.step);
  $("step-notes").replaceChildren(...(here.length
    ? [el("h2", {}, t("Notes and rulings at step %(n)s", { n: view.step })), el("ol", { class: "notes" }, here.map((note) => noteItem(note, false)))]
    : []));
  $("step-notes").hidden = here.length === 0;
}

// The page data carries the annotations as the page was made; the API has any added since.
function loadAnnotations() {
  if (!data.annotations_url) return;
  const headers = { Accept: "application/json" };
  if (data.token) headers.Authorization = `Bearer ${data.token}`;
  fetch(data.annotations_url, { headers })
    .then((response) => (response.ok ? response.json() : null))
    .then((body) => {
      if (body && Array.isArray(body.annotations)) {
        view.annotations = body.annotations;
        drawAnnotations();
      }
    })
    .catch(() => {});
}

function relabelEvents() {
  data.events.forEach((event, i) => {
    items[i].querySelector(".ev-text").textContent = eventText(event);
  });
}

// -- stepping ------------------------------------------------------------------------------

function showControls() {
  const n = view.step;
  $("step-current").textContent = String(n);
  $("slider").value = String(n);
  $("first").disabled = $("prev").disabled = n === 0;
  $("next").disabled = $("last").disabled = n === total;
  for (const item of document.querySelectorAll(".events li.current")) item.classList.remove("current");
  items.forEach((item, i) => item.classList.toggle("near", Math.abs(i + 1 - n) <= NEAR));
  showJump();
  showNotes();
  const where = { title: data.title, game: data.game_id.slice(0, 8), n, total, name: view.perspective };
  $("print-heading").textContent = view.perspective
    ? t("%(title)s, game %(game)s: step %(n)s of %(total)s, as %(name)s saw it", where)
    : t("%(title)s, game %(game)s: step %(n)s of %(total)s", where);
  const event = data.events[n - 1];
  if (event) {
    const item = items[n - 1];
    item.classList.add("current");
    revealInLog(item);
    $("caption").replaceChildren(el("span", { class: "cap-type" }, eventWords(event.type)), eventText(event));
  } else {
    $("caption").replaceChildren(
      el("span", { class: "cap-type" }, t("Start")),
      tn("Nothing has happened yet. Step through the %(n)s event with ▶ or the → key.",
        "Nothing has happened yet. Step through the %(n)s events with ▶ or the → key.", total));
  }
}

// Scroll the event list itself, never the window: on a phone the list sits below the table,
// and scrollIntoView would carry the whole page down to it, away from the table at ?step=n.
function revealInLog(item) {
  const list = $("events");
  if (list.scrollHeight <= list.clientHeight) return;
  const top = item.getBoundingClientRect().top - list.getBoundingClientRect().top + list.scrollTop;
  if (top < list.scrollTop || top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = Math.max(0, top - (list.clientHeight - item.offsetHeight) / 2);
  }
}

function remember() {
  const url = new URL(window.location.href);
  url.searchParams.set("step", String(view.step));
  if (view.perspective) url.searchParams.set("as", view.perspective);
  else url.searchParams.delete("as");
  for (const [key, value] of [["player", view.player], ["type", view.type]]) {
    if (value) url.searchParams.set(key, value);
    else url.searchParams.delete(key);
  }
  window.history.replaceState(null, "", url);
}

async function go(n) {
  view.step = clamp(n);
  showControls();
  remember();
  const asked = ++view.request;
  document.body.classList.add("loading");
  try {
    const step = await fetchStep(view.step);
    if (asked !== view.request) return;
    draw(step);
    // A game still being played (the host watching) may have moved on since the page loaded.
    const more = step.of - total;
    $("problem").textContent = more > 0 ? tn("The game has moved on by %(n)s event: reload to see it.", "The game has moved on by %(n)s events: reload to see them.", more) : "";
    $("problem").hidden = more <= 0;
    if (view.step < total) fetchStep(view.step + 1).catch(() => {}); // smooth "next" and play
  } catch (error) {
    if (asked !== view.request) return;
    $("problem").textContent = t("Could not load %(problem)s", { problem: error.message });
    $("problem").hidden = false;
    pause();
  } finally {
    if (asked === view.request) document.body.classList.remove("loading");
  }
}

function draw(step) {
  const event = data.events[view.step - 1] || null;
  renderTable(data.game, $("table"), step, {
    players: data.players,
    perspective: view.perspective,
    // As a player saw it then: secrets stay hidden until the game was over at that step.
    open: !view.perspective || (step.view && step.view.status === "finished"),
    event,
    options: data.options,
  });
  drawScores(step);
  $("table").dataset.step = String(view.step);
}

function drawScores(step) {
  const v = step.view;
  if (!v) {
    $("scoreboard").replaceChildren();
    return;
  }
  const parts = scoreboard(v, data.players, data);
  if (v.status === "finished" && v.seed !== undefined) {
    parts.push(el("p", { class: "seed" }, t("Seed revealed at the end: %(seed)s", { seed: v.seed })));
  }
  $("scoreboard").replaceChildren(...parts);
}

// -- playing -------------------------------------------------------------------------------

function speed() {
  return Number($("speed").value) || 2;
}

function play() {
  if (view.step >= total) go(0);
  view.playing = true;
  $("play").textContent = "❚❚ " + t("Pause");
  $("play").setAttribute("aria-label", t("Pause"));
  document.body.classList.add("playing");
  tick();
}

function tick() {
  clearTimeout(view.timer);
  view.timer = setTimeout(async () => {
    if (!view.playing) return;
    if (view.step >= total) {
      pause();
      return;
    }
    await go(view.step + 1);
    if (view.playing) tick();
  }, 1000 / speed());
}

function pause() {
  view.playing = false;
  clearTimeout(view.timer);
  $("play").textContent = "▶ " + pt("replay", "Play");
  $("play").setAttribute("aria-label", pt("replay", "Play"));
  document.body.classList.remove("playing");
}

// -- wiring --------------------------------------------------------------------------------

$("first").addEventListener("click", () => { pause(); go(0); });
$("prev").addEventListener("click", () => { pause(); go(view.step - 1); });
$("next").addEventListener("click", () => { pause(); go(view.step + 1); });
$("last").addEventListener("click", () => { pause(); go(total); });
$("play").addEventListener("click", () => (view.playing ? pause() : play()));
$("slider").addEventListener("input", () => { pause(); go(Number($("slider").value)); });
$("speed").addEventListener("change", () => { if (view.playing) tick(); });
$("jump").addEventListener("change", () => {
  if ($("jump").value === "") return;
  pause();
  go(Number($("jump").value));
});
$("filter-player").addEventListener("change", () => {
  view.player = $("filter-player").value;
  applyFilters();
  remember();
});
$("filter-type").addEventListener("change", () => {
  view.type = $("filter-type").value;
  applyFilters();
  remember();
});
$("prev-match").addEventListener("click", () => {
  const n = findMatch(view.step, -1);
  if (n !== null) { pause(); go(n); }
});
$("next-match").addEventListener("click", () => {
  const n = findMatch(view.step, 1);
  if (n !== null) { pause(); go(n); }
});
$("print").addEventListener("click", () => { pause(); window.print(); });
$("perspective").addEventListener("change", () => {
  view.perspective = $("perspective").value;
  relabelEvents();
  go(view.step);
});

const KEYS = {
  ArrowRight: () => go(view.step + 1),
  ArrowLeft: () => go(view.step - 1),
  PageDown: () => go(view.step + 10),
  PageUp: () => go(view.step - 10),
  Home: () => go(0),
  End: () => go(total),
};

document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const tag = e.target.tagName;
  // The slider and the menus handle their own arrow keys; a focused button its own space.
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  if (e.key === " " && tag !== "BUTTON") {
    e.preventDefault();
    if (view.playing) pause();
    else play();
    return;
  }
  const action = KEYS[e.key];
  if (action) {
    e.preventDefault();
    pause();
    action();
  }
});

const asked = new URL(window.location.href).searchParams;
if (data.players.includes(asked.get("as"))) {
  view.perspective = asked.get("as");
  $("perspective").value = view.perspective;
  relabelEvents();
}
if (data.players.includes(asked.get("player"))) view.player = $("filter-player").value = asked.get("player");
if (data.event_types.includes(asked.get("type"))) view.type = $("filter-type").value = asked.get("type");
applyFilters();
drawAnnotations();
loadAnnotations();
go(Number(asked.get("step") || 0));

// -- the host: a fork at the step shown -------------------------------------------------------

// The fork's answer (its tokens, its bot seats) is kept like a creation's, and its own host page
// opens with the invitation links.
async function forkHere() {
  const box = $("fork-problem");
  box.hidden = true;
  $("fork-here").disabled = true;
  try {
    const response = await fetch(data.fork_url, { method: "POST", body: JSON.stringify({ at: view.step }),
      headers: { Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${data.token}` } });
    const answer = await response.json().catch(() => ({}));
    if (response.status !== 201) {
      throw new Error(answer.error ? answer.error.message : `${response.status} ${response.statusText}`);
    }
    keepHosting(answer, (answer.view && answer.view.bots) || {});
    window.location.assign(`${data.viewer_url}${encodeURIComponent(answer.game_id)}/play`);
  } catch (error) {
    box.textContent = t("Could not fork here: %(problem)s", { problem: error.message });
    box.hidden = false;
  } finally {
    $("fork-here").disabled = false;
  }
}

if (data.host && data.token) {
  $("fork-here").hidden = false;
  $("fork-here").addEventListener("click", forkHere);
}
