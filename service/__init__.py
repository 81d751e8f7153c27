"""gruft's service layer: the eventsourcing Application, tokens, storage settings."""

from service.app import Games, NewGame
from service.errors import Conflict, Forbidden, GameNotFound, ServiceError, Unauthorized

__all__ = ["Conflict", "Forbidden", "GameNotFound", "Games", "NewGame", "ServiceError",
           "Unauthorized"]
