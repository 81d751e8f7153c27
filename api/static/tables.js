// One picture of the table per game, drawn from a replay step: `state` (everything at that step)
// and `view` (the public view). A player's perspective shows only what that player could see.

import { pt, t, tn } from "./i18n.js";

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

// The shortest prefixes that tell a set of words apart: card corners that read right in each
// language (green is "G" in English, "Gr" beside "Ge" (Gelb) in German).
function corners(names) {
  const out = {};
  for (const [code, name] of Object.entries(names)) {
    const others = Object.entries(names).filter(([c]) => c !== code).map(([, n]) => n.toLowerCase());
    let size = 1;
    while (size < name.length && others.some((o) => o.startsWith(name.slice(0, size).toLowerCase()))) size += 1;
    out[code] = name.slice(0, size).replace(/^./, (c) => c.toUpperCase());
  }
  return out;
}

// The events' types in words (the types themselves never change); a type not listed is spelled out.
const EVENT_WORDS = {
  CardPlayed: t("Card played"), Collected: t("Collected"), Created: t("Created"), Discarded: t("Discarded"),
  Drew: t("Drew"), Forked: t("Forked"), GameAborted: t("Game aborted"), GameEnded: t("Game ended"),
  GameFinished: t("Game finished"), Hunted: t("Hunted"), MoveSubmitted: t("Move submitted"), Passed: t("Passed"),
  PhaseDealt: t("Phase dealt"), PhaseScored: t("Phase scored"), Played: t("Played"), PlayerFinished: t("Player finished"),
  RingLaid: t("Ring laid"), RoundDealt: t("Round dealt"), RoundEnded: t("Round ended"), RoundScored: t("Round scored"),
  Skipped: t("Skipped"), TrickWon: t("Trick won"), TrumpChosen: t("Trump chosen"), TurnResolved: t("Turn resolved"),
};
export const eventWords = (type) => EVENT_WORDS[type]
  || type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().replace(/^./, (c) => c.toUpperCase());

const STATUS_WORDS = { in_progress: t("in progress"), finished: t("finished"), aborted: t("aborted") };
export const statusWords = (status) => STATUS_WORDS[status] || status;
const BOT_WORDS = { heuristic: t("heuristic"), random: t("random") };
export const botWords = (kind) => BOT_WORDS[kind] || kind;

// Who may be seen how, in this step's perspective.
function seer(ctx) {
  return {
    sees: (player) => ctx.open || ctx.perspective === player,
    everything: !ctx.perspective,
  };
}

function back(count, label) {
  return el("span", { class: "card back", title: label || t("face down") });
}

function hand(cards, visible, cardOf) {
  const size = cards.length;
  const shown = visible ? cards.map(cardOf) : cards.map(() => back());
  const node = el("div", { class: `hand${visible ? "" : " hidden-hand"}${size > 8 ? " crowded" : ""}`, "data-hand-size": size },
    shown.length ? shown : el("span", { class: "empty" }, t("no cards")));
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
    el("h2", {}, el("span", { class: "name", "data-you": ctx.perspective === player ? " " + t("(you)") : null }, player), toAct ? el("span", { class: "badge act" }, t("to act")) : null),
    ...children);
}

function seats(nodes) {
  return el("div", { class: "seats" }, nodes);
}

function lastEventPlayer(ctx) {
  return ctx.event && ctx.event.data ? ctx.event.data.player : null;
}

// -- Voodoo Prince ---------------------------------------------------------------------------

export const VP_COLOURS = { R: t("red"), B: t("blue"), G: t("green"), Y: t("yellow"), P: t("purple") };
const VP_CORNERS = corners(VP_COLOURS);
export const vpColour = (code) => VP_COLOURS[code] || code;

function vpCard(code, extra) {
  return el("span", { class: `card vp vp-${code[0]}${extra ? ` ${extra}` : ""}`, "data-card": code,
    title: t("%(colour)s %(value)s", { colour: vpColour(code[0]), value: code.slice(1) }) },
  el("span", { class: "corner" }, VP_CORNERS[code[0]] || code[0]), el("span", { class: "value" }, code.slice(1)));
}

function vpTrick(entries, winner, label, extraClass) {
  return el("div", { class: `trick ${extraClass}` },
    el("h2", {}, label),
    el("div", { class: "plays" }, entries.length
      ? entries.map((e) => el("figure", { class: e.player === winner ? "won" : "", "data-player": e.player },
        vpCard(e.card), el("figcaption", {}, e.player)))
      : el("span", { class: "empty" }, t("no card yet"))));
}

function voodooPrince(s, ctx) {
  const { sees, everything } = seer(ctx);
  const trump = s.trump ? el("span", { class: `chip vp-${s.trump}`, "data-trump": s.trump }, vpColour(s.trump))
    : el("span", { class: "chip none" }, t("not chosen yet"));
  const centre = [vpTrick(s.trick, null, t("Trick on the table"), "current")];
  if (!s.trick.length && s.last_trick) {
    const last = s.last_trick;
    const label = last.count === 2
      ? t("Last trick: %(winner)s with %(card)s — counts twice (VP-8)", { winner: last.winner, card: last.card })
      : t("Last trick: %(winner)s with %(card)s", { winner: last.winner, card: last.card });
    centre.push(vpTrick(last.trick, last.winner, label, "last"));
  }
  const players = ctx.players.map((p) => {
    const out = s.out.includes(p);
    return seat(p, ctx, out ? "out" : "",
      el("p", { class: "tags" },
        p === s.dealer ? el("span", { class: "badge" }, t("dealer")) : null,
        p === s.leader ? el("span", { class: "badge" }, t("leads")) : null,
        out ? el("span", { class: "badge out" }, t("out of the round")) : null),
      hand(s.hands[p] || [], sees(p), (c) => vpCard(c)),
      out && everything && (s.set_aside[p] || []).length
        ? el("div", { class: "aside" }, el("span", {}, t("set aside:")), s.set_aside[p].map((c) => vpCard(c, "faded")))
        : null,
      info([
        [t("tricks"), el("span", { class: "tricks", "data-tricks": s.tricks[p] }, String(s.tricks[p]))],
        [t("this round"), String(s.round_points[p])],
      ]));
  });
  return [
    info([
      [t("round"), t("%(n)s of %(total)s", { n: s.round, total: s.rounds })],
      [t("trump"), trump],
      [t("dealer"), s.dealer || "—"],
      [t("to finish"), tn("%(n)s trick", "%(n)s tricks", s.tricks_to_finish)],
    ]),
    el("div", { class: "centre" }, centre),
    seats(players),
    everything && s.undealt && s.undealt.length
      ? outOfPlay(tn("%(n)s card not dealt, out for this round (VP-4)", "%(n)s cards not dealt, out for this round (VP-4)", s.undealt.length), s.undealt, (c) => vpCard(c, "mini"))
      : null,
  ];
}

// -- Vampire Queen ---------------------------------------------------------------------------

// A slayer as the rulebooks name it (vampire slayer 15), in words wherever the page says one.
function vqSlayer(code) {
  return t("vampire slayer %(value)s", { value: code.slice(1) });
}

function vqCard(code, extra) {
  const slayer = code === "S15" || code === "S20";
  const kind = slayer ? "slayer" : code === "Q" ? "queen" : "vampire";
  const face = slayer ? `†${code.slice(1)}` : code === "Q" ? "♛" : code;
  const title = slayer ? vqSlayer(code) : code === "Q" ? t("Vampire Queen")
    : t("vampire %(value)s", { value: code });
  return el("span", { class: `card vq vq-${kind}${extra ? ` ${extra}` : ""}`, "data-card": code, title },
    el("span", { class: "value" }, face));
}

function vqRoundEnd(event) {
  // The state after a round's end no longer holds its plays: the event says where they went.
  if (!event || event.type !== "RoundEnded") return null;
  const d = event.data;
  const heading = d.taker ? t("Round %(round)s ended: taken into %(name)s's hand", { round: d.round, name: d.taker })
    : t("Round %(round)s ended: out for this phase", { round: d.round });
  return el("div", { class: "round-plays ended" }, el("h2", {}, heading),
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
    : el("span", { class: "said" }, entry.action === "pass" ? t("passes") : t("skipped — no cards")),
  entry.action === "play" && entry.value !== null ? el("span", { class: "val" }, `= ${entry.value}`) : null));
  const held = pub.slayers || {};
  const players = ctx.players.map((p) => seat(p, ctx, "",
    el("p", { class: "tags" },
      p === s.start ? el("span", { class: "badge" }, t("start player")) : null,
      ...["S15", "S20"].filter((x) => held[x] === p).map((x) => el("span", { class: "badge slayer", "data-slayer": x },
        t("holds slayer %(value)s", { value: x.slice(1) })))),
    hand(s.hands[p], sees(p), (c) => vqCard(c)),
    info([
      [t("minus points"), el("span", { "data-minus": s.scores[p] }, String(s.scores[p]))],
      s.minus_points.length ? [t("by phase"), s.minus_points.map((m) => m[p]).join(" + ")] : null,
    ])));
  let round = t("normal round");
  if (s.slayer) round = t("slayer round (%(slayer)s led)", { slayer: vqSlayer(s.slayer) });
  return [
    info([
      [t("phase"), t("%(n)s of %(total)s", { n: s.phase, total: s.options.phases })],
      [pt("a phase's round", "round"), String(s.round)],
      [t("kind"), round],
      [t("cards a set"), s.count ? String(s.count) : "—"],
      [t("to beat"), highest ? t("%(value)s by %(name)s", { value: s.high, name: highest }) : "—"],
      [t("out this phase"), tn("%(n)s card", "%(n)s cards", pub.cards_out)],
    ]),
    el("div", { class: "centre" },
      vqRoundEnd(ctx.event),
      el("div", { class: `round-plays${s.slayer ? " slayer-round" : ""}` },
        el("h2", {}, t("Round %(round)s", { round: s.round })),
        plays.length ? el("ol", { class: "plays" }, plays) : el("p", { class: "empty" }, t("no card played yet this round"))),
      s.barred ? el("p", { class: "note" }, t("%(name)s may not lead the %(slayer)s this round (VQ-14)", { name: s.barred.player, slayer: vqSlayer(s.barred.slayer) })) : null),
    seats(players),
    everything && s.set_aside.length
      ? outOfPlay(tn("%(n)s card set aside this phase (VQ-2)", "%(n)s cards set aside this phase (VQ-2)", s.set_aside.length), s.set_aside, (c) => vqCard(c, "mini"))
      : null,
  ];
}

// -- Vampir ----------------------------------------------------------------------------------

const VA_COLOURS = ["castle", "graveyard", "madhouse", "docks", "church", "pub"];
// The locations keep the names their cards print (the French summary keeps them too).
export const vaPlace = (location) => location;

function vaCard(code, extra) {
  if (code === "W") {
    return el("span", { class: `card va va-joker${extra ? ` ${extra}` : ""}`, "data-card": code, title: t("Somewhere joker") },
      el("span", { class: "value" }, "★"), el("span", { class: "label" }, t("any")));
  }
  const colour = code.slice(0, -1);
  const short = { castle: "cas", graveyard: "grv", madhouse: "mad", docks: "dock", church: "chu", pub: "pub" };
  const heads = Number(code.slice(-1));
  return el("span", { class: `card va va-${colour}${extra ? ` ${extra}` : ""}`, "data-card": code,
    title: tn("%(location)s, %(n)s head", "%(location)s, %(n)s heads", heads, { location: colour }) },
  el("span", { class: "value" }, "●".repeat(heads)), el("span", { class: "label" }, short[colour] || colour));
}

const vaHeads = (cards) => cards.reduce((n, c) => n + (c.endsWith("2") ? 2 : 1), 0);

function vampir(s, ctx) {
  const { sees, everything } = seer(ctx);
  const locations = VA_COLOURS.map((c) => el("div", { class: `location va-${c}`, "data-location": c, "data-count": s.locations[c].length },
    el("h2", {}, c),
    el("div", { class: "pile" }, s.locations[c].length ? s.locations[c].map((card) => vaCard(card)) : el("span", { class: "empty" }, t("empty")))));
  const pile = el("div", { class: "draw-pile", "data-count": s.draw_pile_size },
    s.draw_pile_size ? back() : el("span", { class: "card gone" }),
    el("span", { class: "count" }, t("draw pile: %(n)s", { n: s.draw_pile_size })),
    everything && s.draw_pile && s.draw_pile.length
      ? el("span", { class: "next" }, t("next:") + " ", s.draw_pile.slice(0, 2).map((c) => vaCard(c, "mini"))) : null);
  const players = ctx.players.map((p) => {
    const hunts = Object.entries(s.hunts[p]);
    return seat(p, ctx, "",
      el("p", { class: "tags" }, p === s.start_player ? el("span", { class: "badge" }, t("started the round")) : null,
        p === s.turn && s.step ? el("span", { class: "badge act" }, s.step === "discard_or_hunt" ? t("drew: discard or hunt") : t("draw or collect")) : null),
      hand(s.hands[p], sees(p), (c) => vaCard(c)),
      el("div", { class: "hunts" }, hunts.length ? hunts.map(([colour, cards]) => el("div", { class: "hunt", "data-colour": colour },
        el("span", { class: "hunt-label" }, colour + " · " + tn("%(n)s head", "%(n)s heads", vaHeads(cards))),
        el("span", { class: "set" }, cards.map((c) => vaCard(c, "mini"))))) : el("span", { class: "empty" }, t("no hunt laid"))),
      info([[t("points"), String(s.scores[p])]]));
  });
  const last = s.last_round && ctx.event && ctx.event.type === "RoundScored" ? s.last_round : null;
  return [
    info([
      [t("round"), t("%(n)s of %(total)s", { n: s.round, total: s.rounds })],
      [t("turn"), s.turn || "—"],
      [t("draw pile"), String(s.draw_pile_size)],
    ]),
    el("div", { class: "centre locations" }, locations, pile),
    last ? el("p", { class: "note" }, t("Round %(round)s scored: %(points)s", { round: last.round,
      points: Object.entries(last.points).map(([p, n]) => `${p} ${n}`).join(", ") })) : null,
    seats(players),
  ];
}

// -- VampiRing -------------------------------------------------------------------------------

// A vampire's shape in words and its letter on the table, in the reader's language (the Spanish
// table's M is Murciélago, bat): the play page's picker and moves say them the same way.
export const VR_SHAPES = { M: t("Man"), W: t("Wolf"), B: t("Bat") };
export const VR_LETTERS = corners(VR_SHAPES);
const VR_NAMES = {
  carriage: t("carriage"), parchment: t("parchment"), tower: t("tower"), forest: t("forest"), cave: t("cave"),
  garlic: t("garlic"), mirror: t("mirror"), graveyard: t("graveyard"), cross: t("cross"),
};
export const vrCard = (card) => VR_NAMES[card] || card;
const VR_CARDS = {
  carriage: "⇶", parchment: "✉", tower: "♜", forest: "♣", cave: "◒", garlic: "✿", mirror: "◐",
  graveyard: "✝", cross: "✚",
};
// What each card does to a vampire stopping on it, and to the fights there (VR-5, VR-7).
const VR_EFFECTS = {
  carriage: [t("moves it again, as many steps the same way"), "vr-5"],
  parchment: [t("sends it straight back to its own Home"), "vr-5"],
  tower: [t("Men take no wounds; every Man wounds each Wolf and each Bat"), "vr-7"],
  forest: [t("Wolves take no wounds; every Wolf wounds each Man and each Bat"), "vr-7"],
  cave: [t("Bats take no wounds; every Bat wounds each Man and each Wolf"), "vr-7"],
  garlic: [t("every wound counts twice"), "vr-7"],
  mirror: [t("every relation turned round: Bat wounds Man, Wolf wounds Bat, Man wounds Wolf"), "vr-7"],
  graveyard: [t("the normal fight"), "vr-7"],
  cross: [t("nobody fights"), "vr-7"],
};

// The ring's cards and what each does, each linked to its ruling on the rules page.
export function vrLegend(rulesUrl) {
  return el("ul", { class: "vr-legend" }, Object.entries(VR_EFFECTS).map(([card, [effect, rule]]) => el("li", { "data-card": card },
    el("strong", {}, `${VR_CARDS[card]} ${vrCard(card)}`), `: ${effect} `,
    el("a", { href: `${rulesUrl}#${rule}`, target: "_blank", rel: "noopener" }, `(${rule.toUpperCase()})`))));
}

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
      "data-position": position, "data-card": card,
      title: owner ? t("%(name)s's Home", { name: owner }) : VR_EFFECTS[card] ? `${vrCard(card)}: ${VR_EFFECTS[card][0]}` : vrCard(card),
    },
    el("span", { class: "rc-name" }, owner ? `⌂ ${owner}` : `${VR_CARDS[card] || ""} ${vrCard(card)}`),
    el("span", { class: "rc-pos" }, `#${position}`),
    haunted.has(position) ? el("span", { class: "rc-haunt" }, "☠ " + t("haunted")) : null,
    el("span", { class: "tokens" }, (standing.get(position) || []).map((v) => el("span", {
      class: `vampire fam-${family[v.player]}`, "data-player": v.player, "data-id": v.id, "data-shape": v.shape,
      title: t("%(name)s's vampire %(id)s: %(shape)s", { name: v.player, id: v.id, shape: VR_SHAPES[v.shape] }),
    }, VR_LETTERS[v.shape] || v.shape))));
    node.style.left = `${50 + radius * Math.cos(angle)}%`;
    node.style.top = `${50 + radius * Math.sin(angle)}%`;
    // Neighbours are 2π·radius/size apart: narrower cards on a longer ring never overlap.
    node.style.width = `calc(${((2 * Math.PI * radius) / ringSize).toFixed(2)}% - 0.5rem)`;
    box.append(node);
  });
  const turn = pub.turn;
  box.append(el("div", { class: "ring-centre" },
    el("p", { class: "big" }, s.finished ? t("game over") : t("turn %(n)s", { n: turn })),
    el("p", {}, t("%(variant)s variant", { variant: s.options.variant })),
    el("p", { class: "legend" }, Object.keys(VR_SHAPES).map((k) => `${VR_LETTERS[k]} ${VR_SHAPES[k]}`).join(" · ")),
    el("p", { class: "legend" }, t("%(man)s 1, %(wolf)s 2, %(bat)s 3 steps", { man: VR_SHAPES.M, wolf: VR_SHAPES.W, bat: VR_SHAPES.B }))));
  const players = ctx.players.map((p) => {
    const blood = s.blood[p];
    const pending = s.pending[p];
    let move = null;
    if (pending) {
      move = sees(p)
        ? el("span", { class: "move", "data-move": `${pending.metamorphosis}/${pending.direction}` },
          pending.direction === "cw" ? t("move: %(metamorphosis)s, clockwise", { metamorphosis: pending.metamorphosis })
            : t("move: %(metamorphosis)s, counter-clockwise", { metamorphosis: pending.metamorphosis }))
        : el("span", { class: "move secret" }, t("move submitted (secret)"));
    }
    const out = p in s.eliminated;
    // As the original shows it: drops remaining, lost in the last turn, lost before it.
    const lastLost = s.last_turn && s.last_turn.lost ? s.last_turn.lost[p] || 0 : 0;
    const before = 8 - blood - lastLost;
    const drop = (i) => (i < blood ? ["drop", "●"] : i < blood + lastLost ? ["drop lost-last", "●"] : ["drop lost", "○"]);
    return seat(p, ctx, `fam fam-${family[p]}${out ? " out" : ""}`,
      el("div", { class: "blood", "data-player": p, "data-blood": blood, "data-lost-last": lastLost, "data-lost-before": before,
        title: t("%(blood)s of 8 drops left, %(last)s lost last turn, %(before)s lost before", { blood, last: lastLost, before }) },
      Array.from({ length: 8 }, (_, i) => el("span", { class: drop(i)[0] }, drop(i)[1])),
      el("span", { class: "blood-words" }, [t("%(n)s left", { n: blood }), lastLost ? t("−%(n)s last turn", { n: lastLost }) : "",
        before ? t("−%(n)s before", { n: before }) : ""].filter(Boolean).join(" · "))),
      el("p", { class: "tags" },
        out ? el("span", { class: "badge out" }, t("eliminated in turn %(n)s", { n: s.eliminated[p] })) : null, move),
      info([[t("home"), String(s.homes[p])], [t("score"), String(s.scores[p])]]));
  });
  return [
    info([
      [t("turn"), String(turn)],
      [t("variant"), s.options.variant],
      [t("moves in"), pub.submitted.length ? pub.submitted.join(", ") : t("none yet")],
    ]),
    el("div", { class: "centre ring-wrap" }, box),
    seats(players),
  ];
}

// -- the scoreboard ------------------------------------------------------------------------

// The scoreboard of a view (the viewer's and the play page's): heading and one row per player;
// `you`, the play page's own seat, is marked.
const UNIT_WORDS = { "minus points": t("minus points"), points: t("points") };
const unitWords = (unit) => UNIT_WORDS[unit] || unit;

export function scoreboard(v, players, { lower_score_wins: lowerWins, score_unit: unit }, you = null) {
  const heading = lowerWins ? t("%(unit)s (fewest wins)", { unit: unitWords(unit) }) : t("Scores");
  const rows = players.map((p) => el("li", {
    class: [v.to_act.includes(p) ? "to-act" : "", v.winners.includes(p) ? "winner" : "", p === you ? "me" : ""].join(" "),
    "data-player": p, "data-score": v.scores[p],
  },
  el("span", { class: "sb-name" }, p === you ? t("%(name)s (you)", { name: p }) : p),
  el("span", { class: "sb-score" }, String(v.scores[p] ?? 0)),
  v.winners.includes(p) ? el("span", { class: "sb-badge" }, t("winner")) : null,
  v.to_act.includes(p) ? el("span", { class: "sb-badge act" }, t("to act")) : null));
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
    container.replaceChildren(el("p", { class: "empty big" }, t("The table is empty: the game has not begun.")));
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
