"""Card fields shared by every schema: what a card may look like in a request and how
cards, card lists and melds are documented in responses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from marshmallow import RAISE, Schema, ValidationError, fields, pre_load

from service.core import cards

if TYPE_CHECKING:
    from apispec.ext.marshmallow.field_converter import FieldConverterMixin

#: A card in a response (the notation is the core's, ``service/core/cards.py``: a request's
#: card fields carry its ``CARD_PATTERN`` instead).
CARD = {"description": "A card: rank then suit (`7H`, `TS`, `JK`); input also accepts `10`, "
        "lower case and ♠♥♦♣; output is always canonical.", "example": "7H",
        "pattern": cards.CANONICAL_CARD_PATTERN}
#: The ranks, as a wild rank or a rank's key is written.
RANKS = list(cards.RANKS)


def check_boolean(value: object) -> None:
    """Refuse what is not a JSON boolean (for a ``fields.Raw`` of ``type: boolean``):
    marshmallow's Boolean also takes 1, "yes"…, which the document's boolean refuses."""
    if not isinstance(value, bool):
        raise ValidationError("must be true or false")


def absent_is_null() -> None:
    """``load_default`` of optional request fields whose absence means null (a rules spec,
    a seed). A callable on purpose: apispec documents a plain ``load_default=None`` as
    ``default: null``, and generators (openapi-typescript) read a property with a default
    as one the body always carries, so the field would come out required in typed clients.
    A callable default is applied the same way when loading but left out of the document.
    """
    return None


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def Card(**kw: Any) -> fields.String:
    return fields.String(metadata=CARD, **kw)


def CardIn(**kw: Any) -> fields.String:
    """A card in a request: the documented pattern is enforced, so valid means parseable."""
    return fields.String(metadata={**CARD, "pattern": cards.CARD_PATTERN}, validate=_check_card,
                         **kw)


def _check_card(text: str) -> None:
    # a body field's own, shorter message (under ``errors``), as this check always wrote it
    if not cards.is_card_text(text):
        raise ValidationError(f"{text!r} is not a card: write rank then suit, e.g. '7H' or 'JK'")


def CardList(**kw: Any) -> fields.List[str]:
    """A list of request cards: each item is checked on its own, so an error names the
    item (``{"hand": {"3": ["'7X' is not a card…"]}}``)."""
    return fields.List(CardIn(), **kw)


def Cards(description: str, **kw: Any) -> fields.List[str]:
    return fields.List(Card(), metadata={"description": description}, **kw)


def Melds(description: str, **kw: Any) -> fields.List[list[str | None]]:
    return fields.List(Cards("One meld."), metadata={"description": description}, **kw)


class StrictSchema(Schema):
    """A request body's schema: unknown fields refused, and numbers only as JSON numbers.

    Why the second: marshmallow's ``Integer`` and ``Float`` take ``"60"`` and ``true`` too,
    which the document's ``integer`` and ``number`` refuse; one rule here holds for every
    numeric field of every body, rather than a ``strict=True`` each field may forget."""

    class Meta:
        unknown = RAISE

    @pre_load
    def _numbers_are_numbers(self, data: Any, **kwargs: Any) -> Any:
        if not isinstance(data, dict):
            return data
        wrong = {key: ["must be a number, not a " + type(data[key]).__name__]
                 for name, field in self.load_fields.items()
                 if isinstance(field, fields.Number)
                 for key in [field.data_key or name]
                 if key in data and data[key] is not None
                 and (isinstance(data[key], bool) or not isinstance(data[key], int | float))}
        if wrong:
            raise ValidationError(wrong)
        return data


class Described(fields.Raw):
    """A field whose OpenAPI schema is given as is (a ``oneOf`` with a discriminator, a
    ``$ref``), which apispec's metadata cannot carry (it keeps only some keywords)."""

    def __init__(self, openapi: dict[str, Any], **kw: Any) -> None:
        super().__init__(**kw)
        self.openapi = openapi


def described2properties(
    self: FieldConverterMixin, field: fields.Field[Any], **kwargs: Any
) -> dict[str, Any]:
    """apispec attribute function (``converter.add_attribute_function``) for
    :class:`Described` fields."""
    return dict(field.openapi) if isinstance(field, Described) else {}


# -- problems -------------------------------------------------------------------------
