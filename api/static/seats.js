// The play page's seats: who has the game open (presence), each seat's clock counting down, who
// the server's bot plays, and the controls to hand a seat to the bot and take it back (the host
// for any seat, a player for their own). Everything comes from the view (`present`, `clocks`,
// `bots`, docs/api.md "The table") and the stream's presence messages; nothing is guessed.
import { t } from "./i18n.js";
import { botWords, el } from "./tables.js";

// Seconds as a clock shows them: 4:05, 1:02:03.
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const two = (n) => String(n).padStart(2, "0");
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

export class Seats {
  constructor(box, { you, host, hand }) {
    this.box = box;
    this.you = you;
    this.host = host;
    this.hand = hand; // (name, bot or null) => a promise: POST /games/{id}/seats/{name}
    this.view = null;
    this.present = null;
    this.clocks = null; // name -> {remaining, running} as of `since`
    this.since = 0;
    this.timer = null;
  }

  // A new view: its clocks are as of now (it was made moments ago, for this page).
  show(view) {
    this.view = view;
    if (view.present) this.present = view.present;
    this.clocks = view.clocks || null;
    this.since = performance.now();
    this.draw();
    clearInterval(this.timer);
    const running = this.clocks && view.status === "in_progress" && Object.values(this.clocks).some((c) => c.running);
    if (running) this.timer = setInterval(() => this.tick(), 250);
  }

  // A stream's presence message: who has the game open now.
  presence(present) {
    this.present = present;
    if (this.view) this.draw();
  }

  // Counting down shows what the server counts; a page gone offline shows no running clock.
  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  remaining(name) {
    const clock = this.clocks && this.clocks[name];
    if (!clock) return null;
    const spent = clock.running ? (performance.now() - this.since) / 1000 : 0;
    return Math.max(0, clock.remaining - spent);
  }

  tick() {
    for (const li of this.box.querySelectorAll("li[data-player]")) {
      const left = this.remaining(li.dataset.player);
      const face = li.querySelector(".seat-clock");
      if (left === null || !face) continue;
      face.textContent = clockText(left);
      li.dataset.remaining = String(Math.ceil(left));
      li.classList.toggle("low", left < 30);
      li.classList.toggle("out", left <= 0);
    }
  }

  draw() {
    const v = this.view;
    const inPlay = v.status === "in_progress";
    const bots = v.bots || {};
    const present = new Set(this.present || []);
    const rows = v.players.map((p) => {
      const bot = bots[p] || null;
      const here = present.has(p);
      const left = this.remaining(p);
      const clock = this.clocks && this.clocks[p];
      const li = el("li", {
        class: [v.to_act.includes(p) && inPlay ? "to-act" : "", p === this.you ? "me" : ""].join(" ").trim() || null,
        "data-player": p, "data-present": String(here), "data-bot": bot || "",
        "data-running": clock ? String(Boolean(clock.running) && inPlay) : null,
        "data-remaining": left === null ? null : String(Math.ceil(left)),
      },
      el("span", { class: "presence", title: here ? t("has the game open") : t("not here now") }, here ? "●" : "○"),
      el("span", { class: "seat-name" }, p === this.you ? t("%(name)s (you)", { name: p }) : p),
      bot ? el("span", { class: "badge seat-bot" }, t("bot: %(bot)s", { bot: botWords(bot) })) : null,
      left === null ? null : el("span", { class: "seat-clock", role: "timer" }, clockText(left)),
      inPlay ? this.control(p, bot) : null);
      return li;
    });
    this.box.replaceChildren(...rows);
    this.box.hidden = false;
  }

  // The host may hand any seat over and back; a player only their own.
  control(p, bot) {
    if (!this.host && p !== this.you) return null;
    const mine = p === this.you;
    const label = bot
      ? (mine ? t("Take my seat back") : t("Give back to %(name)s", { name: p }))
      : (mine ? t("Let the bot play for me") : t("Hand to the bot"));
    const button = el("button", { type: "button", class: "seat-hand", "data-hand": p, "data-to": bot ? "" : "heuristic" }, label);
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await this.hand(p, bot ? null : "heuristic");
      } finally {
        button.disabled = false;
      }
    });
    return button;
  }
}
