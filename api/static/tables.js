// One picture of the table per game, drawn from a replay step: `state` (everything at that step)
// and `view` (the public view). A player's perspective shows only what that player could see.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child); // strings become text nodes: never parsed as HTML
  }
  return node;
}

const plural = (n, word, many) => `${n} ${n === 1 ? word : many || `${word}s`}`;

// Who may be seen how, in this step's perspective.
function seer(ctx) {
  return {
    sees: (player) => ctx.open || ctx.perspective === player,
    everything: !ctx.perspective,
  };
}

function back(count, label) {
  return el("span", { class: "card back", title: label || "face down" });
}

function hand(cards, visible, cardOf) {
  const size = cards.length;
  const shown = visible ? cards.map(cardOf) : cards.map(() => back());
  const node = el("div", { class: `hand${visible ? "" : " hidden-hand"}${size > 8 ? " crowded" : ""}`, "data-hand-size": size },
    shown.length ? shown : el("span", { class: "empty" }, "no cards"));
  // Long hands overlap more so that a seat keeps them on one line (see .hand in the CSS).
  node.style.setProperty("--gaps", String(Math.max(1, size - 1)));
  return node;
}

function outOfPlay(label, cards, cardOf) {
  return el("details", { class: "undealt" }, el("summary", {}, label), el("div", { class: "set" }, cards.map(cardOf)));
}

function info(pairs) {
  return el("dl", { class: "info" }, pairs.filter(Boolean).map(([term, value]) => el("div", {},
    el("dt", {}, term), el("dd", {}, value))));
}

function seat(player, ctx, extraClass, ...children) {
  const toAct = ctx.view && ctx.view.to_act.includes(player);
  const classes = ["seat", toAct ? "to-act" : "", extraClass || "",
    ctx.perspective === player ? "me" : ""].join(" ");
  return el("section", { class: classes, "data-player": player },
    el("h3", {}, el("span", { class: "name" }, player), toAct ? el("span", { class: "badge act" }, "to act") : null),
    ...children);
}

function seats(nodes) {
  return el("div", { class: "seats" }, nodes);
}

function lastEventPlayer(ctx) {
  return ctx.event && ctx.event.data ? ctx.event.data.player : null;
}

// -- Voodoo Prince ---------------------------------------------------------------------------

const VP_COLOURS = { R: "red", B: "blue", G: "green", Y: "yellow", P: "purple" };

function vpCard(code, extra) {
  return el("span", { class: `card vp vp-${code[0]}${extra ? ` ${extra}` : ""}`, "data-card": code,
    title: `${VP_COLOURS[code[0]]} ${code.slice(1)}` },
  el("span", { class: "corner" }, code[0]), el("span", { class: "value" }, code.slice(1)));
}

function vpTrick(entries, winner, label, extraClass) {
  return el("div", { class: `trick ${extraClass}` },
    el("h4", {}, label),
    el("div", { class: "plays" }, entries.length
      ? entries.map((e) => el("figure", { class: e.player === winner ? "won" : "", "data-player": e.player },
        vpCard(e.card), el("figcaption", {}, e.player)))
      : el("span", { class: "empty" }, "no card yet")));
}

function voodooPrince(s, ctx) {
  const { sees, everything } = seer(ctx);
  const trump = s.trump ? el("span", { class: `chip vp-${s.trump}`, "data-trump": s.trump }, VP_COLOURS[s.trump])
    : el("span", { class: "chip none" }, "not chosen yet");
  const centre = [vpTrick(s.trick, null, "Trick on the table", "current")];
  if (!s.trick.length && s.last_trick) {
    const last = s.last_trick;
    const count = last.count === 2 ? " — counts twice (VP-8)" : "";
    centre.push(vpTrick(last.trick, last.winner, `Last trick: ${last.winner} with ${last.card}${count}`, "last"));
  }
  const players = ctx.players.map((p) => {
    const out = s.out.includes(p);
    return seat(p, ctx, out ? "out" : "",
      el("p", { class: "tags" },
        p === s.dealer ? el("span", { class: "badge" }, "dealer") : null,
        p === s.leader ? el("span", { class: "badge" }, "leads") : null,
        out ? el("span", { class: "badge out" }, "out of the round") : null),
      hand(s.hands[p] || [], sees(p), (c) => vpCard(c)),
      out && everything && (s.set_aside[p] || []).length
        ? el("div", { class: "aside" }, el("span", {}, "set aside:"), s.set_aside[p].map((c) => vpCard(c, "faded")))
        : null,
      info([
        ["tricks", el("span", { class: "tricks", "data-tricks": s.tricks[p] }, String(s.tricks[p]))],
        ["this round", String(s.round_points[p])],
      ]));
  });
  return [
    info([
      ["round", `${s.round} of ${s.rounds}`],
      ["trump", trump],
      ["dealer", s.dealer || "—"],
      ["to finish", plural(s.tricks_to_finish, "trick")],
    ]),
    el("div", { class: "centre" }, centre),
    seats(players),
    everything && s.undealt && s.undealt.length
      ? outOfPlay(`${s.undealt.length} cards not dealt, out for this round (VP-4)`, s.undealt, (c) => vpCard(c, "mini"))
      : null,
  ];
}

// -- Vampire Queen ---------------------------------------------------------------------------

function vqCard(code, extra) {
  const slayer = code === "S15" || code === "S20";
  const kind = slayer ? "slayer" : code === "Q" ? "queen" : "vampire";
  const face = slayer ? `†${code.slice(1)}` : code === "Q" ? "♛" : code;
  const title = slayer ? `vampire slayer ${code.slice(1)}` : code === "Q" ? "Vampire Queen" : `vampire ${code}`;
  return el("span", { class: `card vq vq-${kind}${extra ? ` ${extra}` : ""}`, "data-card": code, title },
    el("span", { class: "value" }, face));
}

function vqRoundEnd(event) {
  // The state after a round's end no longer holds its plays: the event says where they went.
  if (!event || event.type !== "RoundEnded") return null;
  const d = event.data;
  const where = d.taker ? `taken into ${d.taker}'s hand` : "out for this phase";
  return el("div", { class: "round-plays ended" }, el("h4", {}, `Round ${d.round} ended: ${where}`),
    el("div", { class: "set" }, d.cards.map((c) => vqCard(c, "mini"))));
}

function vampireQueen(s, ctx) {
  const { sees, everything } = seer(ctx);
  const pub = ctx.view.state;
  const highest = s.high_player;
  const plays = s.plays.map((entry) => el("li", {
    class: `play ${entry.action}${entry.player === highest && entry.action === "play" ? " highest" : ""}`,
    "data-player": entry.player, "data-action": entry.action,
  },
  el("span", { class: "who" }, entry.player),
  entry.action === "play" ? el("span", { class: "set" }, entry.cards.map((c) => vqCard(c)))
    : el("span", { class: "said" }, entry.action === "pass" ? "passes" : "skipped — no cards"),
  entry.action === "play" && entry.value !== null ? el("span", { class: "val" }, `= ${entry.value}`) : null));
  const held = pub.slayers || {};
  const players = ctx.players.map((p) => seat(p, ctx, "",
    el("p", { class: "tags" },
      p === s.start ? el("span", { class: "badge" }, "start player") : null,
      ...["S15", "S20"].filter((x) => held[x] === p).map((x) => el("span", { class: "badge slayer", "data-slayer": x }, `holds slayer ${x.slice(1)}`))),
    hand(s.hands[p], sees(p), (c) => vqCard(c)),
    info([
      ["minus points", el("span", { "data-minus": s.scores[p] }, String(s.scores[p]))],
      s.minus_points.length ? ["by phase", s.minus_points.map((m) => m[p]).join(" + ")] : null,
    ])));
  let round = "normal round";
  if (s.slayer) round = `slayer round (${s.slayer} led)`;
  return [
    info([
      ["phase", `${s.phase} of ${s.options.phases}`],
      ["round", String(s.round)],
      ["kind", round],
      ["cards a set", s.count ? String(s.count) : "—"],
      ["to beat", highest ? `${s.high} by ${highest}` : "—"],
      ["out this phase", plural(pub.cards_out, "card")],
    ]),
    el("div", { class: "centre" },
      vqRoundEnd(ctx.event),
      el("div", { class: `round-plays${s.slayer ? " slayer-round" : ""}` },
        el("h4", {}, `Round ${s.round}`),
        plays.length ? el("ol", { class: "plays" }, plays) : el("p", { class: "empty" }, "no card played yet this round")),
      s.barred ? el("p", { class: "note" }, `${s.barred.player} may not lead ${s.barred.slayer} this round (VQ-14)`) : null),
    seats(players),
    everything && s.set_aside.length
      ? outOfPlay(`${s.set_aside.length} cards set aside this phase (VQ-2)`, s.set_aside, (c) => vqCard(c, "mini"))
      : null,
  ];
}

// -- Vampir ----------------------------------------------------------------------------------

const VA_COLOURS = ["castle", "graveyard", "madhouse", "docks", "church", "pub"];

function vaCard(code, extra) {
  if (code === "W") {
    return el("span", { class: `card va va-joker${extra ? ` ${extra}` : ""}`, "data-card": code, title: "Somewhere joker" },
      el("span", { class: "value" }, "★"), el("span", { class: "label" }, "any"));
  }
  const colour = code.slice(0, -1);
  const short = { castle: "cas", graveyard: "grv", madhouse: "mad", docks: "dock", church: "chu", pub: "pub" };
  const heads = Number(code.slice(-1));
  return el("span", { class: `card va va-${colour}${extra ? ` ${extra}` : ""}`, "data-card": code,
    title: `${colour}, ${plural(heads, "head")}` },
  el("span", { class: "value" }, "●".repeat(heads)), el("span", { class: "label" }, short[colour] || colour));
}

const vaHeads = (cards) => cards.reduce((n, c) => n + (c.endsWith("2") ? 2 : 1), 0);

function vampir(s, ctx) {
  const { sees, everything } = seer(ctx);
  const locations = VA_COLOURS.map((c) => el("div", { class: `location va-${c}`, "data-location": c, "data-count": s.locations[c].length },
    el("h4", {}, c),
    el("div", { class: "pile" }, s.locations[c].length ? s.locations[c].map((card) => vaCard(card)) : el("span", { class: "empty" }, "empty"))));
  const pile = el("div", { class: "draw-pile", "data-count": s.draw_pile_size },
    s.draw_pile_size ? back() : el("span", { class: "card gone" }),
    el("span", { class: "count" }, `draw pile: ${s.draw_pile_size}`),
    everything && s.draw_pile && s.draw_pile.length
      ? el("span", { class: "next" }, "next: ", s.draw_pile.slice(0, 2).map((c) => vaCard(c, "mini"))) : null);
  const players = ctx.players.map((p) => {
    const hunts = Object.entries(s.hunts[p]);
    return seat(p, ctx, "",
      el("p", { class: "tags" }, p === s.start_player ? el("span", { class: "badge" }, "started the round") : null,
        p === s.turn && s.step ? el("span", { class: "badge act" }, s.step === "discard_or_hunt" ? "drew: discard or hunt" : "draw or collect") : null),
      hand(s.hands[p], sees(p), (c) => vaCard(c)),
      el("div", { class: "hunts" }, hunts.length ? hunts.map(([colour, cards]) => el("div", { class: "hunt", "data-colour": colour },
        el("span", { class: "hunt-label" }, `${colour} · ${plural(vaHeads(cards), "head")}`),
        el("span", { class: "set" }, cards.map((c) => vaCard(c, "mini"))))) : el("span", { class: "empty" }, "no hunt laid")),
      info([["points", String(s.scores[p])]]));
  });
  const last = s.last_round && ctx.event && ctx.event.type === "RoundScored" ? s.last_round : null;
  return [
    info([
      ["round", `${s.round} of ${s.rounds}`],
      ["turn", s.turn || "—"],
      ["draw pile", String(s.draw_pile_size)],
    ]),
    el("div", { class: "centre locations" }, locations, pile),
    last ? el("p", { class: "note" }, `Round ${last.round} scored: ${Object.entries(last.points).map(([p, n]) => `${p} ${n}`).join(", ")}`) : null,
    seats(players),
  ];
}

// -- VampiRing -------------------------------------------------------------------------------

const VR_SHAPES = { M: "Man", W: "Wolf", B: "Bat" };
const VR_CARDS = {
  carriage: "⇶", parchment: "✉", tower: "♜", forest: "♣", cave: "◒", garlic: "✿", mirror: "◐",
  graveyard: "✝", cross: "✚",
};

function vampiRing(s, ctx) {
  const { sees } = seer(ctx);
  const pub = ctx.view.state;
  const family = Object.fromEntries(ctx.players.map((p, i) => [p, i]));
  const ringSize = s.ring.length;
  const haunted = new Set(pub.haunted);
  const fought = new Set((s.last_turn && ctx.event && ctx.event.type === "TurnResolved" ? s.last_turn.fights : []).map((f) => f.position));
  const standing = new Map();
  for (const [p, vampires] of Object.entries(s.families)) {
    for (const [id, v] of Object.entries(vampires)) {
      if (!standing.has(v.position)) standing.set(v.position, []);
      standing.get(v.position).push({ player: p, id, shape: v.shape });
    }
  }
  const box = el("div", { class: "ring", "data-size": ringSize });
  box.style.width = `min(100%, ${Math.max(34, ringSize * 2.4)}rem)`; // room for every card
  const radius = 43; // percent of the ring box, to the centre of each card
  s.ring.forEach((card, position) => {
    const angle = (2 * Math.PI * position) / ringSize - Math.PI / 2;
    const owner = card.startsWith("home:") ? card.slice(5) : null;
    const node = el("div", {
      class: ["ring-card", owner ? `home fam-${family[owner]}` : `rc-${card}`, haunted.has(position) ? "haunted" : "",
        fought.has(position) ? "fought" : ""].join(" "),
      "data-position": position, "data-card": card, title: owner ? `${owner}'s Home` : card,
    },
    el("span", { class: "rc-name" }, owner ? `⌂ ${owner}` : `${VR_CARDS[card] || ""} ${card}`),
    el("span", { class: "rc-pos" }, `#${position}`),
    haunted.has(position) ? el("span", { class: "rc-haunt" }, "☠ haunted") : null,
    el("span", { class: "tokens" }, (standing.get(position) || []).map((v) => el("span", {
      class: `vampire fam-${family[v.player]}`, "data-player": v.player, "data-id": v.id, "data-shape": v.shape,
      title: `${v.player}'s vampire ${v.id}: ${VR_SHAPES[v.shape]}`,
    }, v.shape))));
    node.style.left = `${50 + radius * Math.cos(angle)}%`;
    node.style.top = `${50 + radius * Math.sin(angle)}%`;
    // Neighbours are 2π·radius/size apart: narrower cards on a longer ring never overlap.
    node.style.width = `calc(${((2 * Math.PI * radius) / ringSize).toFixed(2)}% - 0.5rem)`;
    box.append(node);
  });
  const turn = pub.turn;
  box.append(el("div", { class: "ring-centre" },
    el("p", { class: "big" }, s.finished ? "game over" : `turn ${turn}`),
    el("p", {}, `${s.options.variant} variant`),
    el("p", { class: "legend" }, "M Man · W Wolf · B Bat"),
    el("p", { class: "legend" }, "Man 1, Wolf 2, Bat 3 steps")));
  const players = ctx.players.map((p) => {
    const blood = s.blood[p];
    const pending = s.pending[p];
    let move = null;
    if (pending) {
      move = sees(p)
        ? el("span", { class: "move", "data-move": `${pending.metamorphosis}/${pending.direction}` },
          `move: ${pending.metamorphosis}, ${pending.direction === "cw" ? "clockwise" : "counter-clockwise"}`)
        : el("span", { class: "move secret" }, "move submitted (secret)");
    }
    const out = p in s.eliminated;
    // As the original shows it: drops remaining, lost in the last turn, lost before it.
    const lastLost = s.last_turn && s.last_turn.lost ? s.last_turn.lost[p] || 0 : 0;
    const before = 8 - blood - lastLost;
    const drop = (i) => (i < blood ? ["drop", "●"] : i < blood + lastLost ? ["drop lost-last", "●"] : ["drop lost", "○"]);
    return seat(p, ctx, `fam fam-${family[p]}${out ? " out" : ""}`,
      el("div", { class: "blood", "data-player": p, "data-blood": blood, "data-lost-last": lastLost, "data-lost-before": before,
        title: `${blood} of 8 drops left, ${lastLost} lost last turn, ${before} lost before` },
      Array.from({ length: 8 }, (_, i) => el("span", { class: drop(i)[0] }, drop(i)[1])),
      el("span", { class: "blood-words" }, `${blood} left${lastLost ? ` · −${lastLost} last turn` : ""}${before ? ` · −${before} before` : ""}`)),
      el("p", { class: "tags" },
        out ? el("span", { class: "badge out" }, `eliminated in turn ${s.eliminated[p]}`) : null, move),
      info([["home", String(s.homes[p])], ["score", String(s.scores[p])]]));
  });
  return [
    info([
      ["turn", String(turn)],
      ["variant", s.options.variant],
      ["moves in", pub.submitted.length ? pub.submitted.join(", ") : "none yet"],
    ]),
    el("div", { class: "centre ring-wrap" }, box),
    seats(players),
  ];
}

// -- the scoreboard ------------------------------------------------------------------------

// The scoreboard of a view (the viewer's and the play page's): heading and one row per player;
// `you`, the play page's own seat, is marked.
export function scoreboard(v, players, { lower_score_wins: lowerWins, score_unit: unit }, you = null) {
  const heading = lowerWins ? `${unit} (fewest wins)` : "Scores";
  const rows = players.map((p) => el("li", {
    class: [v.to_act.includes(p) ? "to-act" : "", v.winners.includes(p) ? "winner" : "", p === you ? "me" : ""].join(" "),
    "data-player": p, "data-score": v.scores[p],
  },
  el("span", { class: "sb-name" }, p === you ? `${p} (you)` : p),
  el("span", { class: "sb-score" }, String(v.scores[p] ?? 0)),
  v.winners.includes(p) ? el("span", { class: "sb-badge" }, "winner") : null,
  v.to_act.includes(p) ? el("span", { class: "sb-badge act" }, "to act") : null));
  return [el("h2", {}, heading[0].toUpperCase() + heading.slice(1)), el("ol", {}, rows)];
}

// -- dispatch ------------------------------------------------------------------------------

// The game registry (domain.GAMES) as base.html serves it: each game key -> its class name.
// The scripts dispatch on the class name, so no game key is written here.
export const GAME_KINDS = Object.freeze(JSON.parse(document.getElementById("game-kinds")?.textContent || "{}"));

// The class name of a game key ("" for a key the registry does not have).
export function kindOf(game) {
  return Object.hasOwn(GAME_KINDS, game) ? GAME_KINDS[game] : "";
}

// One card of a game as the table draws it (the play page's hands and move buttons use them).
const CARDS = { VoodooPrince: vpCard, VampireQueen: vqCard, Vampir: vaCard };

export function card(game, code, extra) {
  const draw = CARDS[kindOf(game)];
  return draw ? draw(code, extra) : el("span", { class: "card", "data-card": code }, code);
}

const TABLES = {
  VoodooPrince: voodooPrince,
  VampireQueen: vampireQueen,
  Vampir: vampir,
  VampiRing: vampiRing,
};

export function renderTable(game, container, step, ctx) {
  if (!step.state) {
    container.replaceChildren(el("p", { class: "empty big" }, "The table is empty: the game has not begun."));
    return;
  }
  const full = { ...ctx, view: step.view, event: step.event || null };
  const draw = TABLES[kindOf(game)];
  let parts;
  try {
    parts = draw ? draw(step.state, full) : null;
  } catch (error) {
    parts = null;
    console.error(error); // a state shape this page does not know: show it plainly instead
  }
  if (!parts) {
    parts = [el("pre", { class: "raw" }, JSON.stringify(step.state, null, 2))];
  }
  container.replaceChildren(...parts.filter(Boolean));
  container.dataset.actor = lastEventPlayer(full) || "";
}
