"""Service errors: what the API turns into 401, 403, 404 and 409."""

from __future__ import annotations

from domain.core.words import Said


class ServiceError(Said, Exception):
    """Base of the service's own errors: a marked message and its parameters (domain.core.words)."""


class GameNotFound(ServiceError):
    """No game has that id."""


class Unauthorized(ServiceError):
    """A token that is wrong, malformed, or missing where one is needed."""


class Forbidden(ServiceError):
    """A valid token that may not do this (another player's seat, a replay before the end)."""


class Conflict(ServiceError):
    """A stale expected_version, or another writer stored the same version first."""
