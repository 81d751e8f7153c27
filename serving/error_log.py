"""gunicorn's error log without tokens (issue 23, item 6).

gunicorn logs a request it cannot parse — a request line holding a control character, a bad
header name — with the whole line, query string and all, so `?token=…` reached the log. Every
line of gunicorn's error log goes through `redact` first: a query string, a `token=`, `invite=`
or `code=` value and an `Authorization` value are replaced by `…` (gruft's own log lines never hold them:
api/request_log.py).
"""

from __future__ import annotations

import logging
import re

from gunicorn.glogging import Logger

# A query string in a URL or request line, up to the next space or quote (escaped or not).
_QUERY = re.compile(r"\?[^\s'\"]*")
_TOKEN = re.compile(r"((?:token|invite|code)=)[^\s&'\"]*", re.IGNORECASE)
_BEARER = re.compile(r"(bearer\s+)[^\s'\"]+", re.IGNORECASE)


def redact(text: str) -> str:
    """`text` with every query string, token value and bearer credential replaced by `…`."""
    return _BEARER.sub(r"\1…", _TOKEN.sub(r"\1…", _QUERY.sub("?…", text)))


class Redacting(logging.Filter):
    """Rewrites each record's message through `redact`."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), None
        return True


class RedactingLogger(Logger):
    """gunicorn's logger, its error log redacted (`gruft serve --logger-class`)."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        self.error_log.addFilter(Redacting())
