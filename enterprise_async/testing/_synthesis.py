"""Answers synthesized from the spec's response schemas, for operations with no stateful handler.

A new endpoint in the spec therefore answers in the sandbox as soon as it is regenerated: with
data valid against its success schema, the same for the same seed, operation and path parameters,
and, for a list, paginated as its ``x-sdk-pagination`` says (any envelope, or a bare list).
"""

from __future__ import annotations

import datetime
import hashlib
import math
import random
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final
from urllib.parse import urlencode

import orjson
from attrs import evolve, frozen

from .._spec import Operation, Pagination
from ._completion import Completion, Draw, Shape, shape_of
from ._pages import page_envelope, requested_page
from ._replies import ApiError, Reply

__all__ = ["SYNTHETIC_LIST_LENGTH", "SYNTHETIC_PAGE_SIZE", "Synthesizer"]

SYNTHETIC_LIST_LENGTH: Final = 23
"""Items a synthesized listing holds: more than one page at the default size, not a round number."""
SYNTHETIC_PAGE_SIZE: Final = 10
"""Page size of a synthesized listing when the request sets none."""
MAX_DEPTH: Final = 6
"""Nesting beyond which optional fields are left out (recursive schemas end)."""
_EPOCH: Final = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
_WORDS: Final = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india")


class Synthesizer:
    """Deterministic values of JSON Schemas whose ``$ref``s point into ``components``."""

    def __init__(self, components: Mapping[str, Any], seed: int) -> None:
        self.components = components
        self.seed = seed
        self._completion = Completion(self)

    def answer(
        self,
        operation: Operation[Any],
        responses: Mapping[int, Any],
        *,
        params: Mapping[str, str],
        query: Mapping[str, str],
        origin: str,
        path: str,
    ) -> Reply:
        """The answer of ``operation``: its first documented success status with a synthesized body."""
        status = min(responses, default=200)
        schema = responses.get(status)
        if schema is None:
            return Reply(None, status)
        key = (operation.name, *sorted(params.items()))
        if operation.pagination is None:
            return Reply(self.value(schema, self._random(*key)), status)
        listing = _Listing(operation.pagination, query, origin, path)
        return Reply(self._page(schema, listing, key), status)

    # ------------------------------------------------------------------ values

    def value(self, schema: Any, rng: random.Random, depth: int = 0) -> Any:
        """A value valid against ``schema``, drawn from ``rng``."""
        schema = self.resolve(schema)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return rng.choice(schema["enum"])
        for union in ("oneOf", "anyOf"):
            if union in schema and not _only_required(schema[union]):
                return self._variant(schema, union, rng, depth)
        kind = _kind(schema)
        if kind == "object":
            return self._object(schema, rng, depth)
        if kind == "array":
            return self._array(schema, rng, depth)
        return _scalar(kind, schema, rng)

    def complete(
        self,
        value: Any,
        schema: Any,
        rng: random.Random | Draw,
        *,
        shape: Shape | None = None,
        items: Mapping[str, Shape] | None = None,
    ) -> Any:
        """``value`` (a stateful handler's answer) with every documented field it lacks filled in
        from ``schema``, required or optional, as the services send them (``Completion``): a
        field a spec edit adds appears at once. ``shape`` and ``items`` say what a service emits
        (of the answer, and of every object of a schema, by name)."""
        return self._completion.complete(value, schema, rng, shape=shape, items=items)

    def resolve(self, schema: Any) -> Mapping[str, Any]:
        """``schema`` with its ``$ref`` (and ``allOf`` parts) followed."""
        while isinstance(schema, Mapping) and "$ref" in schema:
            schema = self.components[schema["$ref"].rsplit("/", 1)[-1]]
        if isinstance(schema, Mapping) and "allOf" in schema:
            merged: dict[str, Any] = {key: value for key, value in schema.items() if key != "allOf"}
            for part in schema["allOf"]:
                part = self.resolve(part)
                merged["properties"] = {**merged.get("properties", {}), **part.get("properties", {})}
                merged["required"] = [*merged.get("required", []), *part.get("required", [])]
                merged.setdefault("type", part.get("type"))
            return merged
        return schema if isinstance(schema, Mapping) else {}

    def _variant(self, schema: Mapping[str, Any], union: str, rng: random.Random, depth: int) -> Any:
        options = schema[union]
        index = rng.randrange(len(options)) if "discriminator" in schema else 0
        value = self.value(options[index], rng, depth)
        discriminator = schema.get("discriminator")
        if discriminator and isinstance(value, dict):
            ref = options[index].get("$ref")
            tags = [tag for tag, target in discriminator.get("mapping", {}).items() if target == ref]
            if tags:
                value[discriminator["propertyName"]] = tags[0]
        return value

    def _object(self, schema: Mapping[str, Any], rng: random.Random, depth: int) -> dict[str, Any]:
        properties: Mapping[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        for union in ("anyOf", "oneOf"):
            if union in schema and _only_required(schema[union]):
                required |= set(schema[union][0]["required"])
        excluded = set(schema.get("not", {}).get("required", ())) - required
        names = [
            name for name in properties if name not in excluded and (name in required or depth < MAX_DEPTH)
        ]
        return {name: self.value(properties[name], rng, depth + 1) for name in names}

    def _array(self, schema: Mapping[str, Any], rng: random.Random, depth: int) -> list[Any]:
        low = schema.get("minItems", 0)
        high = max(low, min(schema.get("maxItems", 3), 3 if depth < MAX_DEPTH else low))
        return [self.value(schema.get("items", {}), rng, depth + 1) for _ in range(rng.randint(low, high))]

    # ------------------------------------------------------------------ listings

    def _page(self, schema: Any, listing: _Listing, key: tuple[Any, ...]) -> Any:
        pagination = listing.pagination
        items = pagination.items
        envelope = self._envelope(schema, items or "")
        page = listing.window()
        if not items or _kind(envelope) == "array":  # a bare list
            return self._items(envelope, page, key)
        properties = envelope.get("properties", {})
        body = self.value(envelope, self._random(*key, "envelope"))
        fields = page_envelope(
            pagination,
            self._items(properties.get(items, {}), page, key),
            count=page.count,
            pages=page.pages,
            size=page.size,
            links=listing.links(page),
        )
        echoed = {pagination.page_param: page.number, pagination.offset_param: page.start}
        body.update(
            {
                name: value
                for name, value in (echoed | fields).items()
                if name is not None and name in properties
            }
        )
        return body

    def envelope_fields(self, responses: Mapping[int, Any], pagination: Pagination) -> tuple[str, ...]:
        """The fields of a listing's envelope in the order its schema declares them (the order
        the service writes them in); none for a bare list."""
        schema = responses.get(min(responses, default=200))
        if schema is None or pagination.items is None:
            return ()
        return tuple(self._envelope(schema, pagination.items).get("properties", {}))

    def _envelope(self, schema: Any, items: str) -> Mapping[str, Any]:
        """The page's schema; of a union (an envelope or a bare list), the envelope holding ``items``
        (the bare list when ``items`` is empty)."""
        resolved = self.resolve(schema)
        options = [self.resolve(option) for option in resolved.get("oneOf", resolved.get("anyOf", ()))]
        pages = [option for option in options if _holds(option, items)]
        return pages[0] if pages else options[0] if options else resolved

    def _items(self, array: Mapping[str, Any], page: _Window, key: tuple[Any, ...]) -> list[Any]:
        item = self.resolve(array).get("items", {})
        return [self.value(item, self._random(*key, index)) for index in range(page.start, page.end)]

    def completer(
        self,
        name: str,
        responses: Mapping[int, Any],
        *,
        envelope: Sequence[str] | None = None,
        fields: Sequence[Any] | None = None,
    ) -> Callable[[Reply, Mapping[str, str]], Reply]:
        """What completes the answers of operation ``name`` (``complete`` on the schema of each
        answer's status), drawing each lacking field from the seed and the object lacking it. A service
        that writes only an ``envelope``'s fields, or only its serializer's ``fields`` of the
        objects it answers with (the items of the answer's lists), gets no other field."""
        shape = Shape(frozenset(envelope)) if envelope is not None else None
        emitted = shape_of(fields) if fields is not None else None
        listed = {
            status: dict.fromkeys(self._listed_schemas(schema), emitted) if emitted is not None else None
            for status, schema in responses.items()
        }

        def completed(reply: Reply, params: Mapping[str, str]) -> Reply:
            schema = responses.get(reply.status)
            if schema is None or reply.data is None:
                return reply
            items = listed[reply.status]
            data = self.complete(reply.data, schema, self._lacked, shape=shape, items=items)
            return reply if data is reply.data else evolve(reply, data=data)

        return completed

    def _listed_schemas(self, schema: Any) -> set[str]:
        """The schemas (by name) of the objects an answer lists: its own items when it is a list,
        else those of its lists (a page's results, an allocation's created, updated, no_change)."""
        resolved = self.resolve(schema)
        options = [resolved, *resolved.get("oneOf", resolved.get("anyOf", ()))]
        arrays = [self.resolve(option) for option in options]
        arrays += [self.resolve(part) for option in arrays for part in option.get("properties", {}).values()]
        return {
            array["items"]["$ref"].rsplit("/", 1)[-1]
            for array in arrays
            if isinstance(array.get("items"), Mapping) and "$ref" in array["items"]
        }

    def _lacked(self, value: Mapping[str, Any], field: str) -> random.Random:
        """The source of ``field`` that ``value`` lacks: drawn from the seed, the field and what
        the object holds, never from the request, so an object reads the same on every page."""
        return self._random("lacked", field, orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str))

    def _random(self, *key: Any) -> random.Random:
        digest = hashlib.sha256(repr((self.seed, *key)).encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))


@frozen
class _Window:
    """``size`` items from ``start`` out of ``count``: a page, by number or by offset."""

    start: int
    size: int
    count: int

    @property
    def end(self) -> int:
        return min(self.count, self.start + self.size)

    @property
    def number(self) -> int:
        return self.start // self.size + 1

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.count / self.size))


class _Listing:
    """The page a request for a synthesized listing asks for, by page number or by offset, and
    the links to the pages around it, in the parameters the operation pages by."""

    def __init__(self, pagination: Pagination, query: Mapping[str, str], origin: str, path: str) -> None:
        self.pagination = pagination
        self.query = query
        self.origin = origin
        self.path = path
        offset = pagination.offset_param
        self.by_offset = offset is not None and (offset in query or pagination.page_param is None)

    def window(self) -> _Window:
        size_param = self.pagination.size_param or "page_size"
        sized = {size_param: self.query[size_param]} if size_param in self.query else {}
        page_param = self.pagination.page_param or "page"
        if not self.by_offset:
            numbered = {**sized, "page": self.query.get(page_param, "1")}
            page = requested_page(
                numbered,
                SYNTHETIC_LIST_LENGTH,
                pagination=self.pagination,
                default_size=SYNTHETIC_PAGE_SIZE,
                size_param=size_param,
            )
            return _Window(page.start, page.size, page.count)
        size = requested_page(
            sized, 0, pagination=self.pagination, default_size=SYNTHETIC_PAGE_SIZE, size_param=size_param
        ).size
        name = self.pagination.offset_param or "offset"
        text = self.query.get(name, "0")
        if not text.isdigit():
            raise ApiError(400, {name: ["A valid integer is required."]})
        return _Window(int(text), size, SYNTHETIC_LIST_LENGTH)

    def links(self, window: _Window) -> tuple[str | None, str | None]:
        """The next and previous links (None at either end)."""
        following = window.start + window.size if window.end < window.count else None
        preceding = max(0, window.start - window.size) if window.start > 0 else None
        return self._link(window, following), self._link(window, preceding)

    def _link(self, window: _Window, start: int | None) -> str | None:
        if start is None:
            return None
        if self.by_offset:
            name, value = self.pagination.offset_param or "offset", start
        else:
            name, value = self.pagination.page_param or "page", start // window.size + 1
        pairs = [(key, text) for key, text in self.query.items() if key != name]
        if self.by_offset or value > 1:  # page 1's link carries no page number, as DRF writes it
            pairs.append((name, str(value)))
        text = urlencode(pairs)
        return f"{self.origin}{self.path}?{text}" if text else f"{self.origin}{self.path}"


def _holds(option: Mapping[str, Any], items: str) -> bool:
    """Whether a page schema holds its items in the field ``items`` (empty: is a bare list)."""
    return items in option.get("properties", {}) if items else _kind(option) == "array"


def _only_required(options: Any) -> bool:
    """Whether a union only says which fields are required (a body rule, not a choice of shapes)."""
    return isinstance(options, list) and all(
        isinstance(option, Mapping) and set(option) == {"required"} for option in options
    )


def _kind(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [name for name in kind if name != "null"]
        return kinds[0] if kinds else "null"
    if kind is None:
        return "object" if "properties" in schema else "string"
    return str(kind)


def _scalar(kind: str, schema: Mapping[str, Any], rng: random.Random) -> Any:
    if kind == "null":
        return None
    if kind == "boolean":
        return rng.random() < 0.5
    if kind in ("integer", "number"):
        low = int(schema.get("minimum", 0))
        high = int(schema.get("maximum", low + 1000))
        number = rng.randint(low, max(low, high))
        if kind == "integer" or number >= high:
            return number
        return number + rng.randrange(100) / 100
    return _string(schema, rng)


def _string(schema: Mapping[str, Any], rng: random.Random) -> str:
    form = schema.get("format")
    if form == "uuid":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if form == "email":
        return f"{rng.choice(_WORDS)}.{rng.randrange(10_000)}@example.com"
    if form == "date-time":
        return (
            (_EPOCH + datetime.timedelta(seconds=rng.randrange(365 * 86400)))
            .isoformat()
            .replace("+00:00", "Z")
        )
    if form == "date":
        return (_EPOCH + datetime.timedelta(days=rng.randrange(365))).date().isoformat()
    if form == "decimal":
        return f"{rng.randrange(100_000)}.{rng.randrange(100):02d}"
    if form in ("uri", "url"):
        return f"https://example.com/{rng.choice(_WORDS)}/{rng.randrange(10_000)}"
    if schema.get("pattern") == "^[0-9]+$":
        return str(rng.randrange(10_000))
    text = f"{rng.choice(_WORDS)}-{rng.randrange(10_000)}"
    return text.ljust(schema.get("minLength", 0), "x")
