"""The games' mapper: eventsourcing's, except that an event read in a newer shape than it was
stored in is stored again (a re-import) as it was stored.

eventsourcing's mapper applies an event type's upcasters when it reads a stored event, and writes
every event in its type's current shape (`class_version`). An upcast event of ours keeps what was
stored (domain.core.chain, STORED_AS); a game imported from a document of an older release holds
such events, and they are written back in the shape and with the payload their chain covers, so
that a record is never rewritten, not even by copying it (docs/format.md, "Event shapes").
"""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.utils import get_topic

from domain.core.chain import META_FIELDS, STORED_AS


class StoredShapeMapper(Mapper):
    """eventsourcing's Mapper; events upcast on reading are written as they were stored."""

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        stored = domain_event.__dict__.get(STORED_AS)
        if stored is None:
            return super().to_stored_event(domain_event)
        state = {k: v for k, v in vars(domain_event).items()
                 if k in META_FIELDS and k not in (STORED_AS, "originator_id",
                                                   "originator_version")}
        state.update(stored["data"])
        if stored["shape"] > 1:
            state["class_version"] = stored["shape"]
        encoded = self.transcoder.encode(state)
        if self.compressor:
            encoded = self.compressor.compress(encoded)
        if self.cipher:
            encoded = self.cipher.encrypt(encoded)
        return StoredEvent(originator_id=domain_event.originator_id,
                           originator_version=domain_event.originator_version,
                           topic=get_topic(type(domain_event)), state=encoded)
