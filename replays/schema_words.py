"""The JSON Schema's complaints about a replay document in the reader's language (issue 25).

The validator (jsonschema_rs) says what is wrong in English; its error also says which keyword
failed and with what (`error.kind`). Each keyword the document's schema uses, and the others a
schema commonly does, has a marked template here built from those; the English stays the
validator's own sentence word for word (`SchemaWords`), and a keyword not listed is said in a
translated sentence that quotes the validator's.
"""

from __future__ import annotations

import json
from typing import Any

from domain.core.words import N_, Gettext, Phrase, english, fill

VALUE_CHARS = 80  # a value quoted in a message, at most


def shown(value: Any) -> str:
    """A JSON value as the validator quotes it (compact JSON), cut short."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 1] + "…"


def _listed(values: list[Any]) -> str:
    return ", ".join(shown(v) for v in values)


def _unexpected(kind: Any) -> tuple[str, dict]:
    names = [str(n) for n in kind.unexpected]
    if len(names) == 1:
        return (N_("Additional properties are not allowed (%(property)s was unexpected)"),
                {"property": repr(names[0])})
    return (N_("Additional properties are not allowed (%(properties)s were unexpected)"),
            {"properties": ", ".join(map(repr, names))})


def _type(kind: Any) -> tuple[str, dict]:
    types = [str(t) for t in kind.types]
    if len(types) == 1:
        return N_("%(value)s is not of type %(type)s"), {"type": shown(types[0])}
    return N_("%(value)s is not of types %(types)s"), {"types": _listed(types)}


# The kind of error (its class in jsonschema_rs.ValidationErrorKind) -> its template and
# parameters; %(value)s is always the value that failed.
KINDS = {
    "Required": lambda k: (N_("%(property)s is a required property"),
                           {"property": shown(k.property)}),
    "Type": _type,
    "Enum": lambda k: (N_("%(value)s is not one of %(options)s"), {"options": _listed(k.options)}),
    "Constant": lambda k: (N_("%(expected)s was expected"), {"expected": shown(k.expected_value)}),
    "AdditionalProperties": _unexpected,
    "Minimum": lambda k: (N_("%(value)s is less than the minimum of %(limit)s"),
                          {"limit": shown(k.limit)}),
    "Maximum": lambda k: (N_("%(value)s is greater than the maximum of %(limit)s"),
                          {"limit": shown(k.limit)}),
    "ExclusiveMinimum": lambda k: (
        N_("%(value)s is less than or equal to the minimum of %(limit)s"),
        {"limit": shown(k.limit)}),
    "ExclusiveMaximum": lambda k: (
        N_("%(value)s is greater than or equal to the maximum of %(limit)s"),
        {"limit": shown(k.limit)}),
    "MinLength": lambda k: (N_("%(value)s is shorter than the minimum length of %(limit)s"),
                            {"limit": k.limit}),
    "MaxLength": lambda k: (N_("%(value)s is longer than the maximum length of %(limit)s"),
                            {"limit": k.limit}),
    "Pattern": lambda k: (N_("%(value)s does not match %(pattern)s"),
                          {"pattern": shown(k.pattern)}),
    "MinItems": lambda k: (N_("%(value)s has fewer items than the minimum of %(limit)s"),
                           {"limit": k.limit}),
    "MaxItems": lambda k: (N_("%(value)s has more items than the maximum of %(limit)s"),
                           {"limit": k.limit}),
    "OneOfNotValid": lambda k: (N_("%(value)s is not valid under any of the schemas listed in "
                                   "the %(keyword)s keyword"), {"keyword": "'oneOf'"}),
    "AnyOf": lambda k: (N_("%(value)s is not valid under any of the schemas listed in the "
                           "%(keyword)s keyword"), {"keyword": "'anyOf'"}),
    "OneOfMultipleValid": lambda k: (N_("%(value)s is valid under more than one of the schemas "
                                        "listed in the 'oneOf' keyword"), {}),
    "Not": lambda k: (N_("%(schema)s is not allowed for %(value)s"), {"schema": shown(k.schema)}),
    "UniqueItems": lambda k: (N_("%(value)s has non-unique elements"), {}),
    "MultipleOf": lambda k: (N_("%(value)s is not a multiple of %(multiple)s"),
                             {"multiple": shown(k.multiple_of)}),
}
UNKNOWN = N_("%(value)s does not follow the schema (%(detail)s)")


class SchemaWords(Phrase):
    """A validator's complaint: its English the validator's own sentence, said in another
    language from a marked template (the validator's sentence where the catalog has none)."""

    english: str

    def __new__(cls, template: str, text: str, /, **params: object) -> SchemaWords:
        words = str.__new__(cls, text)
        words.template, words.params, words.english = template, params, text
        return words

    def __reduce__(self) -> tuple:
        return (_rebuilt, (self.template, self.english, self.params))

    def said(self, gettext: Gettext = english) -> str:
        if gettext(self.template) == self.template:  # English, or not translated
            return self.english
        return fill(self.template, self.params, gettext)


def _rebuilt(template: str, text: str, params: dict) -> SchemaWords:
    return SchemaWords(template, text, **params)


def schema_words(error: Any, limit: int = 300) -> SchemaWords:
    """One jsonschema_rs ValidationError in words (its message cut to `limit` characters)."""
    text = error.message[:limit]
    value = shown(error.instance)
    try:
        template, params = KINDS[type(error.kind).__name__](error.kind)
    except (KeyError, AttributeError, TypeError):
        return SchemaWords(UNKNOWN, text, value=value, detail=text)
    return SchemaWords(template, text, value=value, **params)
