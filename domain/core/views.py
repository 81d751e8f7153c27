"""The views of a game (docs/api.md): what each viewer may see of it now, and its receipts.

``Game`` inherits these; what is secret is decided by domain.core.visibility and by each game's
`public_state`, `private_state` and `SECRET_FIELDS`.
"""

from __future__ import annotations

from typing import Any

from domain.core.visibility import Viewer, redact_event_data, sees_everything


class Views:
    """A game's views, as ``Game`` makes them."""

    @property
    def status(self) -> str:
        if self.aborted:
            return "aborted"
        return "finished" if self.finished else "in_progress"

    def receipted(self, player: str) -> tuple[int, str] | None:
        """(version, hash) of the last event `player`'s last move stored; None before any."""
        if self._mover == player:  # the newest step is that move's
            return self.version, self.chain_hash
        last = (self._receipted or {}).get(player)
        return None if last is None else (last[0], last[1])

    @property
    def revealed(self) -> bool:
        """Whether everything about the game is public, as far as the game alone knows: it is
        over and in no sealed family (a family member is revealed when every game of its family
        is over, which the service decides: service.audit.seals)."""
        return self.finished and self.family is None

    def view(self, viewer: Viewer, revealed: bool | None = None) -> dict[str, Any]:
        """The view docs/api.md describes, with what `viewer` may see of the game now
        (`revealed`: whether its secrets are public, by default `self.revealed`)."""
        public = sees_everything(viewer, self.revealed if revealed is None else revealed)
        return self.seat_view(self.public_view(public), viewer)

    def public_view(self, with_seed: bool) -> dict[str, Any]:
        """The part of every view that all viewers share (the seed and salt `with_seed`: for
        the host, or everybody once the game is over)."""
        out: dict[str, Any] = {
            "game_id": str(self.id),
            "game": self.KEY,
            "players": list(self.players),
            "status": self.status,
            "version": self.version,
            "to_act": [] if self.finished else list(self.to_act),
            "scores": dict(self.scores),
            "winners": list(self.winners),
            "seed_commitment": self.seed_commitment,
            "options": dict(self.options),
            "state": self.public_state(),
        }
        if self.parent is not None:
            out["parent"] = dict(self.parent)
        if with_seed:
            out["seed"] = self.seed
            if self.salt is not None:
                out["salt"] = self.salt
        return out

    def seat_view(self, public: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
        """A new view: `public` (left unchanged, so several viewers may share it) and what
        `viewer`'s own seat adds."""
        out = dict(public)
        if viewer.player is not None:
            out["you"] = viewer.player
            out["private"] = self.private_state(viewer.player)
        return out

    def redact(self, event_type: str, data: dict[str, Any], viewer: Viewer,
               revealed: bool | None = None) -> dict[str, Any]:
        """An event's data as `viewer` may see it now (`revealed` as for `view`)."""
        return redact_event_data(self.SECRET_FIELDS, event_type, data, viewer,
                                 self.revealed if revealed is None else revealed)
