"""VampiRing's pure rules: the ring, metamorphoses, movement, fights, wounds and scoring.

Functions of plain data only (no aggregate), so the command can compute a whole turn's
resolution once and record it in an event that replay merely assigns.
"""

from __future__ import annotations

from typing import Any

BLOOD = 8  # VR-1: drops of blood per family
VAMPIRE_IDS = ("1", "2", "3")  # VR-1
START_SHAPES = {"1": "M", "2": "W", "3": "B"}  # VR-1: Man, Wolf, Bat
SPECIAL_CARDS = ("parchment", "tower", "forest", "cave", "garlic", "mirror", "graveyard", "cross")
HOME_PREFIX = "home:"

# VR-4: the two metamorphoses.
METAMORPHOSES = {
    "a": {"M": "W", "W": "B", "B": "M"},
    "b": {"M": "B", "B": "W", "W": "M"},
}
DIRECTIONS = {"cw": 1, "ccw": -1}  # VR-2: clockwise is increasing position
STEPS = {"M": 1, "W": 2, "B": 3}  # VR-5

# VR-6, VR-7: attacker shape -> shapes it wounds, per card. A shape no one attacks is immune.
NORMAL = {"M": ("B",), "B": ("W",), "W": ("M",)}
ATTACKS = {
    "tower": {"M": ("W", "B"), "B": ("W",)},
    "forest": {"W": ("M", "B"), "M": ("B",)},
    "cave": {"B": ("M", "W"), "W": ("M",)},
    "mirror": {"B": ("M",), "W": ("B",), "M": ("W",)},
}


def home_card(player: str) -> str:
    """The Home card of a player's family (VR-2)."""
    return HOME_PREFIX + player


def home_owner(card: str) -> str | None:
    """The family a Home card belongs to, or None for any other card."""
    return card[len(HOME_PREFIX):] if card.startswith(HOME_PREFIX) else None


def ring_cards(players: list[str]) -> list[str]:
    """The VR-2 cards of a game, in a fixed order (the order the seeded shuffle starts from)."""
    return ([home_card(p) for p in players] + ["carriage"] * len(players)
            + list(SPECIAL_CARDS))


def home_positions(ring: list[str]) -> dict[str, int]:
    """Each family's Home position on the ring."""
    return {owner: pos for pos, card in enumerate(ring)
            if (owner := home_owner(card)) is not None}


def start_family(home: int) -> dict[str, dict[str, Any]]:
    """A family as it starts (VR-1): Man, Wolf and Bat on its Home."""
    return {vid: {"shape": START_SHAPES[vid], "position": home} for vid in VAMPIRE_IDS}


def travel(ring: list[str], home: int, start: int, shape: str, sign: int) -> list[int]:
    """Where a vampire stops, hop by hop (VR-5): the start, then every card it stops on."""
    size = len(ring)
    steps = STEPS[shape] * sign
    path = [start]
    position = (start + steps) % size
    path.append(position)
    # A carriage chain cannot cycle with at most 6 players (a cycle of carriages spaced 1-3
    # apart would need at least (2n + 8) / 3 carriages, more than n); the bound is a guard.
    for _ in range(size):
        card = ring[position]
        if card == "carriage":
            position = (position + steps) % size
        elif card == "parchment":
            position = home
        else:
            break
        path.append(position)
    return path


def landings(ring: list[str], home: int, family: dict[str, dict[str, Any]],
             metamorphosis: str, direction: str) -> dict[str, dict[str, Any]]:
    """Where a family's vampires would stop with this move (VR-4, VR-5): shape, path, stop.

    The move alone decides this; the fights on the cards they land on wait for every family's
    move, which stay secret until the turn resolves (VR-4).
    """
    change = METAMORPHOSES[metamorphosis]
    sign = DIRECTIONS[direction]
    moved = {}
    for vid in VAMPIRE_IDS:
        vampire = family[vid]
        shape = change[vampire["shape"]]
        path = travel(ring, home, vampire["position"], shape, sign)
        moved[vid] = {"shape": shape, "path": path, "position": path[-1]}
    return moved


def fight(card: str, occupants: list[dict[str, Any]], variant: str) -> list[int] | None:
    """Wounds per occupant on one card (VR-6, VR-7), or None when no fight happens there."""
    # Plain dicts rather than Counters: this runs for every occupied card of every turn.
    counts: dict[str, int] = {}
    for o in occupants:
        counts[o["shape"]] = counts.get(o["shape"], 0) + 1
    if len(counts) < 2 or card == "cross":
        return None
    attacks = ATTACKS.get(card, NORMAL)
    factor = 2 if card == "garlic" else 1
    taken: dict[str, int] = {}
    for attacker, victims in attacks.items():
        n = counts.get(attacker, 0)
        for victim in victims:
            taken[victim] = taken.get(victim, 0) + n
    # VR-3, VR-7: in the castle variant a family takes no wounds on its own Home.
    safe = home_owner(card) if variant == "castle" else None
    return [0 if o["player"] == safe else taken.get(o["shape"], 0) * factor for o in occupants]


def resolve(
    ring: list[str],
    homes: dict[str, int],
    families: dict[str, dict[str, dict[str, Any]]],
    moves: dict[str, dict[str, str]],
    blood: dict[str, int],
    haunted: dict[int, str],
    variant: str,
) -> dict[str, Any]:
    """One turn's resolution (VR-5 .. VR-9), as the TurnResolved event records it."""
    paths: dict[str, dict[str, Any]] = {}
    standing: dict[int, list[dict[str, Any]]] = {}
    for player, family in families.items():
        move = moves[player]
        paths[player] = moved = landings(ring, homes[player], family, move["metamorphosis"],
                                         move["direction"])
        for vid in VAMPIRE_IDS:
            stop = moved[vid]["position"]
            occupant = {"player": player, "id": vid, "shape": moved[vid]["shape"]}
            if stop in standing:
                standing[stop].append(occupant)
            else:
                standing[stop] = [occupant]
    wounds = {p: 0 for p in families}
    fights = []
    haunts = []
    for position in sorted(standing):
        occupants = standing[position]
        card = ring[position]
        # A lone vampire never fights (VR-6): skip the call on most cards.
        dealt = fight(card, occupants, variant) if len(occupants) > 1 else None
        if dealt is not None:
            fights.append({
                "position": position, "card": card, "vampires": occupants,
                "wounds": [{"player": o["player"], "id": o["id"], "wounds": n}
                           for o, n in zip(occupants, dealt, strict=True) if n],
            })
            for o, n in zip(occupants, dealt, strict=True):
                wounds[o["player"]] += n
        if position in haunted:  # VR-8: one wound per vampire stopping there
            for o in occupants:
                haunts.append({"position": position, "home": haunted[position],
                               "player": o["player"], "id": o["id"]})
                wounds[o["player"]] += 1
    # VR-9: drops lost count up to the family's remaining blood.
    lost = {p: min(wounds[p], blood[p]) for p in families}
    return {
        "moves": {p: dict(moves[p]) for p in families},
        "vampires": paths,
        "fights": fights,
        "haunted": haunts,
        "wounds": wounds,
        "lost": lost,
        "eliminated": [p for p in families if blood[p] - lost[p] == 0],
    }


def total_lost(blood: dict[str, int]) -> int:
    """Drops lost by all families so far, each counted up to 8 (VR-9, VR-11)."""
    return sum(BLOOD - left for left in blood.values())
