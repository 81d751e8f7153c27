// The rematch, offered once a game is over: the host or any seat starts it (POST
// /games/{id}/rematch), and every page holding a token of this game moves on to it with the same
// token, valid there for the same seat (docs/api.md, "The table"); a spectator gets a link to
// watch it. A finished game's page learns of a rematch from its view's `rematch`.
import { t } from "./i18n.js";
import { el } from "./tables.js";

function copy(key, from, to) {
  for (const storage of [sessionStorage, localStorage]) {
    try {
      const kept = storage.getItem(`${key}.${from}`);
      if (kept !== null) storage.setItem(`${key}.${to}`, kept);
    } catch {
      /* private browsing */
    }
  }
}

export class Rematch {
  constructor(box, { gameId, seat, url, gamesUrl, headers, problem }) {
    this.box = box;
    this.gameId = gameId;
    this.seat = seat; // {token, role, you} or null (a spectator)
    this.url = url; // POST /games/{id}/rematch
    this.gamesUrl = gamesUrl; // "/games/"
    this.headers = headers;
    this.problem = problem;
    this.shown = undefined;
  }

  page(id) {
    return `${this.gamesUrl}${encodeURIComponent(id)}/play`;
  }

  // This tab's seat (and the host's invitations) carried to the rematch, then its page.
  moveOn(id, fresh = null) {
    copy("gruft.play", this.gameId, id);
    copy("gruft.seat", this.gameId, id);
    // The host's kept seat tokens work in the rematch too (fresh ones when this page made it);
    // its links are the old game's, so the rematch's host page makes its own.
    try {
      const kept = JSON.parse(sessionStorage.getItem(`gruft.invites.${this.gameId}`)
        || localStorage.getItem(`gruft.invites.${this.gameId}`) || "null");
      if (kept || fresh) {
        const { links: _old, ...rest } = kept || { bots: {} };
        const invites = fresh ? { ...rest, player_tokens: fresh } : rest;
        sessionStorage.setItem(`gruft.invites.${id}`, JSON.stringify(invites));
        localStorage.setItem(`gruft.invites.${id}`, JSON.stringify(invites));
      }
    } catch {
      /* private browsing: the rematch's host page offers to make new links */
    }
    window.location.assign(this.page(id));
  }

  async start(button) {
    button.disabled = true;
    try {
      const response = await fetch(this.url, { method: "POST", headers: this.headers(true), body: "{}" });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) {
        throw new Error(answer.error ? answer.error.message : `${response.status} ${response.statusText}`);
      }
      const fresh = answer.player_tokens && Object.keys(answer.player_tokens).length ? answer.player_tokens : null;
      this.moveOn(answer.game_id, fresh);
    } catch (error) {
      this.problem(t("Could not start the rematch: %(problem)s", { problem: error.message }));
      button.disabled = false;
    }
  }

  // Drawn for a game that is over: join the rematch there is, or offer to start one.
  show(view) {
    const id = view.rematch || null;
    if (this.shown === id) return;
    this.shown = id;
    this.box.dataset.rematch = id || "";
    if (id && this.seat) {
      const go = el("button", { type: "button", class: "primary", id: "rematch-go" }, t("Go to the rematch"));
      go.addEventListener("click", () => this.moveOn(id));
      this.box.replaceChildren(el("span", {}, t("A rematch has begun.")), " ", go);
    } else if (id) {
      this.box.replaceChildren(el("span", {}, t("A rematch has begun.")), " ",
        el("a", { href: this.page(id), id: "rematch-watch" }, t("Watch the rematch")));
    } else if (this.seat) {
      const start = el("button", { type: "button", id: "rematch-start" }, t("Rematch"));
      start.addEventListener("click", () => this.start(start));
      this.box.replaceChildren(start, " ", el("span", { class: "hint" }, t("the same table, the seats moved round by one")));
    } else {
      this.box.replaceChildren();
    }
    this.box.hidden = !this.box.childElementCount;
  }
}
