"""The services behind the gateway, as the sandbox answers for them: the spec's ``x-sdk-services``
(per service: formats, token and permission answers, request ids, page-size reading) and each
operation's ``x-sdk-service`` (its service, the parameter naming the customer-owned resource, page
size and envelope, the checks the service makes that the reference leaves out), read as data.

Under the ``"services"`` profile (the default) every rule applies; under ``"reference"`` none does and
the sandbox answers as the reference documents the API. Nothing here knows one endpoint from another:
a rule names its parameter, and the owner of a resource is found by its kind.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

from attrs import evolve
from multidict import MultiDict

from ._replies import ApiError

if TYPE_CHECKING:
    from ._call import Call
    from ._state import SandboxData

__all__ = ["NO_CUSTOMER", "PROFILES", "Profile", "Services"]

T = TypeVar("T")
Profile = Literal["services", "reference"]
PROFILES: Final = ("services", "reference")
NO_CUSTOMER: Final = "00000000-0000-0000-0000-000000000000"
"""The customer an ``empty`` access rule lists for: one that owns nothing, so the listing is empty."""
NOT_ACCEPTABLE: Final = "Could not satisfy the request Accept header."
JSON: Final = "application/json"
XML: Final = "application/xml"
CSV: Final = "text/csv"
_CHOICE: Final = "Select a valid choice. {value} is not one of the available choices."


class Services:
    """The service rules of every operation under one profile, over the sandbox's data."""

    def __init__(
        self,
        profile: Profile,
        services: Mapping[str, Mapping[str, Any]],
        rules: Mapping[str, Mapping[str, Any]],
        data: SandboxData,
        customer_uuid: str,
        components: Mapping[str, Any] | None = None,
    ) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
        self.profile = profile
        self._services = services if profile == "services" else {}
        self._rules = rules if profile == "services" else {}
        self._data = data
        self._components = components or {}
        self.customer_uuid = customer_uuid
        """The customer the sandbox's tokens are tied to."""
        self._fields: dict[str, Fields] = {}

    @property
    def active(self) -> bool:
        """Whether the sandbox answers as the services do (else as the reference documents)."""
        return self.profile == "services"

    def rules(self, operation: str | None) -> Mapping[str, Any]:
        """``operation``'s ``x-sdk-service`` (nothing under the reference profile)."""
        return self._rules.get(operation or "", {})

    def service(self, operation: str | None) -> Mapping[str, Any]:
        """The ``x-sdk-services`` entry of ``operation``'s service."""
        return self._services.get(self.rules(operation).get("service", ""), {})

    # ------------------------------------------------------------------ negotiation, ids, tokens

    def media(self, operation: str | None, accept: str) -> str | None:
        """The media type of the answer to ``accept``: the first of the view's formats (the
        operation's own ``formats``, else its service's) the header names, else 406 (None) when
        it names only XML and the view renders none, else the first format (DRF's negotiation;
        ``*/*`` and others get JSON). Without a service: JSON when asked for, XML otherwise (the
        reference)."""
        formats = self.rules(operation).get("formats") or self.service(operation).get("formats")
        if not formats:
            return JSON if JSON in accept else XML
        named = next((media for media in formats if media in accept), None)
        if named is not None:
            return str(named)
        return None if XML in accept else str(formats[0])

    def streams(self, operation: str, accept: str) -> bool:
        """Whether the view streams every record as CSV to ``accept`` (a ``csv`` rule, and the
        negotiation picks ``text/csv``) instead of answering a page."""
        return "csv" in self.rules(operation) and self.media(operation, accept) == CSV

    def csv(self, operation: str, records: Sequence[Mapping[str, Any]]) -> tuple[bytes, dict[str, str]]:
        """``records`` as the view's CSV renderer writes them (djangorestframework-csv: a header
        row of the ``fields``, then one row a record, ``csv.writer``'s excel dialect, UTF-8) and
        the headers of its streamed answer (``csv.filename`` as an attachment)."""
        columns = [name for name in self.rules(operation)["fields"] if isinstance(name, str)]
        text = io.StringIO()
        writer = csv.writer(text)
        writer.writerow(columns)
        writer.writerows([record.get(name) for name in columns] for record in records)
        filename = self.rules(operation)["csv"]["filename"]
        headers = {"Content-Type": CSV, "Content-Disposition": f'attachment; filename="{filename}"'}
        return text.getvalue().encode(), headers

    def request_id(self, operation: str | None, given: str | None) -> dict[str, str]:
        """The request id header the service echoes (its placeholder when none was given)."""
        echo = self.service(operation).get("request-id")
        if not echo:
            return {}
        return {echo["header"]: given or echo["none"]}

    def expired(self, operation: str | None) -> str | None:
        """The service's words for an expired token, if it has its own."""
        found = self.service(operation).get("token-expired")
        return str(found) if found else None

    def page_size_fallback(self, operation: str | None) -> bool:
        """Whether a page size that is not a positive integer means the default size."""
        return bool(self.service(operation).get("page-size-fallback"))

    def max_page_size(self, operation: str | None) -> int | None:
        """The largest page size a request may ask ``operation``'s service for (``max-page-size``):
        DRF's ``max_page_size`` caps a size given in the query, never the default size."""
        found = self.rules(operation).get("max-page-size")
        return None if found is None else int(found)

    def emitted(self, operation: str, items: Sequence[Any]) -> list[Any]:
        """``items`` (the records the operation answers with) as its serializer emits them: only
        the fields its ``fields`` rule lists, a ``{field: [...]}`` entry naming the fields of a
        nested serializer. Without the rule, the items as they are."""
        names = self.rules(operation).get("fields")
        if names is None:
            return list(items)
        fields = self._fields.get(operation)
        if fields is None:
            fields = self._fields[operation] = _fields(names)
        return [_only(item, fields) for item in items]

    def listed(self, operation: str, records: Sequence[T]) -> list[T]:
        """The records a listing holds: those of the token's customer where the service lists
        only them (``listed: token-customer``), else all."""
        if self.rules(operation).get("listed") != "token-customer":
            return list(records)
        return [record for record in records if getattr(record, "customer_uuid", None) == self.customer_uuid]

    # ------------------------------------------------------------------ checks before the view

    def check(self, operation: str, call: Call) -> Call:
        """The service's permission check, then its checks of the request; the call the view reads
        (an ``empty`` access rule points it at a customer with nothing)."""
        rules = self.rules(operation)
        if not rules:
            return call
        viewed = self._access(rules.get("access"), operation, call)
        for rule in rules.get("query-rules", ()):  # on the request as sent, not the view's filter
            _query_rule(rule, call)
        for name, choices in rules.get("choices", {}).items():
            _choice(name, self._choices(choices), call)
        for name in rules.get("body-required", ()):
            _body_field(name, call)
        return viewed

    def _choices(self, choices: str | list[str]) -> list[str]:
        """A parameter's choices: listed, or the ``enum`` of the component schema named."""
        if isinstance(choices, str):
            return [str(value) for value in self._components[choices].get("enum", ())]
        return choices

    def _access(self, rule: Mapping[str, Any] | None, operation: str, call: Call) -> Call:
        if rule is None:
            return call
        name = rule["param"]
        where = "params" if name in call.params else "query"
        value = call.params.get(name) if where == "params" else call.query.get(name)
        empty = rule.get("denied") == "empty"
        if value is None and empty:
            return _with_query(call, name, self.customer_uuid) if where == "query" else call
        owner = None if value is None else self.owner(rule["owner"], value.lower())
        if owner == self.customer_uuid:
            return call
        if empty and where == "query":
            return _with_query(call, name, NO_CUSTOMER)
        missing = rule.get("missing")
        if owner is None and missing is not None:  # the view looks the resource up before the check
            raise ApiError(int(missing["status"]), {"detail": missing["detail"]})
        raise ApiError(403, {"detail": self.service(operation).get("forbidden", "Forbidden")})

    def owner(self, kind: str, key: str) -> str | None:
        """The customer owning the resource of ``kind`` identified by ``key`` (None: no such one)."""
        data = self._data
        if kind == "customer":
            return key if data.customer(key) is not None else None
        if kind == "agreement":  # license-manager's CustomerAgreement: a customer with plans
            return key if data.plans_of(key) else None
        found: Any = {
            "plan": data.plan,
            "policy": data.policy,
            "catalog": data.catalog,
            "configuration": self._policy_of_configuration,
        }[kind](key)
        return None if found is None else str(found.customer_uuid)

    def _policy_of_configuration(self, key: str) -> Any:
        return self._data.policy_of_configuration(key)


Fields = tuple[tuple[str, "Fields | None"], ...]
"""A ``fields`` rule read once: each field kept, with the fields kept of its own (None: all)."""


def _fields(names: Sequence[Any]) -> Fields:
    """``names`` (a ``fields`` rule: names, and ``{field: [...]}`` entries) read as ``Fields``."""
    fields: list[tuple[str, Fields | None]] = []
    for entry in names:
        nested = entry if isinstance(entry, dict) else {entry: None}
        for name, inner in nested.items():
            fields.append((name, None if inner is None else _fields(inner)))
    return tuple(fields)


def _only(value: Any, fields: Fields) -> Any:
    """``value`` (a mapping, or a list of them) with only the ``fields`` kept, in their order;
    a field with fields of its own keeps only those."""
    if isinstance(value, list):
        return [_only(item, fields) for item in value]
    if not isinstance(value, dict):
        return value
    return {
        name: value[name] if inner is None else _only(value[name], inner)
        for name, inner in fields
        if name in value
    }


def _with_query(call: Call, name: str, value: str) -> Call:
    query: MultiDict[str] = MultiDict((key, text) for key, text in call.query.items() if key != name)
    query[name] = value
    return evolve(call, query=query)


def _query_rule(rule: Mapping[str, Any], call: Call) -> None:
    """``{when: {param: value}, requires: other, detail}``: DRF's ParseError when ``other`` is missing."""
    if all(call.query.get(name) == value for name, value in rule["when"].items()) and not call.query.get(
        rule["requires"]
    ):
        raise ApiError(400, {"detail": rule["detail"]})


def _choice(name: str, choices: list[str], call: Call) -> None:
    """django-filter's choice filter (exact, and ``__in`` with comma-separated values)."""
    for key in (name, f"{name}__in"):
        for text in call.query.getall(key, []):
            values = [text] if key == name else [part for part in text.split(",") if part]
            wrong = next((value for value in values if value not in choices), None)
            if wrong is not None and text:
                raise ApiError(400, {key: [_CHOICE.format(value=wrong)]})


def _body_field(name: str, call: Call) -> None:
    """A body field the service's serializer requires though the reference leaves it optional."""
    import orjson

    try:
        data = orjson.loads(call.body or b"null")
    except orjson.JSONDecodeError:
        return  # the view answers a body it cannot parse
    if isinstance(data, dict) and name not in data:
        raise ApiError(400, {name: ["This field is required."]})
