"""Python's JSON reader's complaints in the reader's language (issue 25).

`json.JSONDecodeError` says what it met in English ("Expecting ',' delimiter: line 1 column 5
(char 4)"). Its `msg` is one of a small fixed set (CPython's json/decoder.py and _json.c, 3.11
to 3.14), each listed here as a marked template with where the reader stopped, whose English is
Python's own sentence word for word; a message not listed (a later Python's) is said in a
translated sentence that still quotes it.
"""

from __future__ import annotations

import json

from domain.core.words import N_, Phrase

# Python's `msg` -> the whole sentence, where it stopped included (as str(error) says it).
DECODER = {
    "Expecting value": N_("Expecting value: line %(line)s column %(column)s (char %(char)s)"),
    "Expecting ',' delimiter": N_("Expecting ',' delimiter: line %(line)s column %(column)s "
                                  "(char %(char)s)"),
    "Expecting ':' delimiter": N_("Expecting ':' delimiter: line %(line)s column %(column)s "
                                  "(char %(char)s)"),
    "Expecting property name enclosed in double quotes": N_(
        "Expecting property name enclosed in double quotes: line %(line)s column %(column)s "
        "(char %(char)s)"),
    "Unterminated string starting at": N_("Unterminated string starting at: line %(line)s "
                                          "column %(column)s (char %(char)s)"),
    "Invalid control character at": N_("Invalid control character at: line %(line)s column "
                                       "%(column)s (char %(char)s)"),
    "Invalid \\escape": N_("Invalid \\escape: line %(line)s column %(column)s (char %(char)s)"),
    "Invalid \\uXXXX escape": N_("Invalid \\uXXXX escape: line %(line)s column %(column)s "
                                 "(char %(char)s)"),
    "Extra data": N_("Extra data: line %(line)s column %(column)s (char %(char)s)"),
    # Python 3.13 and later
    "Illegal trailing comma before end of object": N_(
        "Illegal trailing comma before end of object: line %(line)s column %(column)s "
        "(char %(char)s)"),
    "Illegal trailing comma before end of array": N_(
        "Illegal trailing comma before end of array: line %(line)s column %(column)s "
        "(char %(char)s)"),
}
# The pure-Python reader (without the C accelerator) adds the character it met to these two.
PREFIXES = {"Invalid control character": "Invalid control character at",
            "Invalid \\escape": "Invalid \\escape"}
UNKNOWN = N_("the JSON text cannot be read (%(detail)s): line %(line)s column %(column)s "
             "(char %(char)s)")


def decode_problem(error: json.JSONDecodeError) -> Phrase:
    """What the JSON reader met and where, as a Phrase: Python's English, said in any language."""
    where = {"line": error.lineno, "column": error.colno, "char": error.pos}
    template = DECODER.get(error.msg) or next(
        (DECODER[key] for prefix, key in PREFIXES.items() if error.msg.startswith(prefix)), None)
    if template is None:
        return Phrase(UNKNOWN, detail=error.msg[:200], **where)
    return Phrase(template, **where)
