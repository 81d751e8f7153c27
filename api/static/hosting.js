// What a creation (POST /games) or a fork answers, kept in this browser so its host page can show
// the invitation links: the server keeps no token, only its fingerprint. The tab's sessionStorage
// has it for the page opened next; localStorage keeps it for the host link reopened here later.

// Keep the answer of a new game; `bots`: its seats the server plays; `you`: the organiser's seat.
export function keepHosting(answer, bots, you = null) {
  const id = answer.game_id;
  const hosting = { token: answer.host_token, role: "host", you };
  const invites = { player_tokens: answer.player_tokens, bots: bots || {} };
  sessionStorage.setItem(`gruft.play.${id}`, JSON.stringify(hosting));
  sessionStorage.setItem(`gruft.invites.${id}`, JSON.stringify(invites));
  try {
    localStorage.setItem(`gruft.invites.${id}`, JSON.stringify(invites));
    localStorage.setItem(`gruft.seat.${id}`, JSON.stringify(hosting));
  } catch {
    /* private browsing: this tab only */
  }
}
