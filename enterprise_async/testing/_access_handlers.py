"""enterprise-access's endpoints in the sandbox: subsidy access policies (list, allocate) and
their assignments (list with its filters and ordering, remind, cancel).

One job: read these requests, apply the transitions on ``SandboxData``, shape the answers as
enterprise-access does (its refusals, its 422s with empty bodies).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any, Final

from multidict import MultiMapping

from ._answer_pages import sorted_nulls_last
from ._call import Call, Handler
from ._parsing import query_bool, query_csv, query_int, query_uuid, valid_uuid
from ._records import AssignmentRecord
from ._registry import aliased
from ._replies import ApiError, Reply, not_found
from ._service_handlers import ServiceHandlers

__all__ = ["AccessHandlers"]

NO_FUNDS: Final = (
    "You can't enroll right now because your organization doesn't have enough funds. "
    "Contact your administrator to request more."
)


_LEARNER_STATE_ORDER: Final = {
    state: rank for rank, state in enumerate(("notifying", "waiting", "failed", "expired"))
}
"""The rank enterprise-access annotates as ``learner_state_sort_order`` (the spec's order of LearnerState)."""
ASSIGNMENT_ORDERING: Final[Mapping[str, Callable[[AssignmentRecord], Any]]] = {
    "uuid": lambda record: record.uuid,
    "learner_email": lambda record: record.learner_email,
    "lms_user_id": lambda record: record.lms_user_id,
    "content_key": lambda record: record.content_key,
    "content_title": lambda record: record.content_title,
    "content_quantity": lambda record: record.content_quantity,
    "state": lambda record: record.state,
    "learner_state": lambda record: record.learner_state,
    "created": lambda record: record.created,
    "recent_action_time": lambda record: record.recent_action["timestamp"],
    "learner_state_sort_order": lambda record: _LEARNER_STATE_ORDER.get(record.learner_state or ""),
}
"""Fields the assignment list orders by; others named in ``ordering`` are ignored, as DRF does."""
ASSIGNMENT_QUERY: Final = (
    *(
        f"{name}{suffix}"
        for name in ("content_key", "learner_email", "learner_state", "state", "lms_user_id")
        for suffix in ("", "__in")
    ),
    "search",
    "ordering",
)
"""Query parameters that filter or order the assignment list (beside the page's own)."""


class AccessHandlers(ServiceHandlers):
    """The policy and assignment endpoints over one ``SandboxData``."""

    def handlers(self) -> dict[str, Handler]:
        return {
            "policies.allocate": aliased(self.allocate, policy="policy_uuid"),
            "policies.list": self.policies,
            "assignments.list": aliased(self.assignments, configuration="assignment_configuration_uuid"),
            "assignments.remind": aliased(self.remind, configuration="assignment_configuration_uuid"),
            "assignments.cancel": aliased(self.cancel, configuration="assignment_configuration_uuid"),
        }

    def allocate(self, call: Call) -> Reply:
        policy = self.data.policy(call.params["policy"].lower())
        if policy is None:
            raise not_found()
        body = call.json("learner_emails", "content_key", "content_price_cents")
        emails = body.emails("learner_emails")
        content_key = body.text("content_key")
        price = body.integer("content_price_cents", minimum=0)
        if policy.assignment_configuration_uuid is None:
            raise ApiError(400, {"detail": f"Policy {policy.uuid} does not allow assignments."})
        self._allocatable(policy, content_key, price)
        if price * len(emails) > self.data.spend_available(policy):
            raise ApiError(422, [_refusal("policy_spend_limit_reached", NO_FUNDS, policy.uuid)])
        outcome = self.data.allocate(policy, emails, content_key, price)
        emitted = partial(self.services.emitted, "policies.allocate")
        return Reply(
            {
                "updated": emitted([record.wire() for record in outcome.updated]),
                "created": emitted([record.wire() for record in outcome.created]),
                "no_change": emitted([record.wire() for record in outcome.no_change]),
            },
            status=202,
        )

    def _allocatable(self, policy: Any, content_key: str, price: int) -> None:
        """The service's checks before allocating (``x-sdk-service`` ``allocation``), in its
        order: the price asked within its ratio of the content's price, an active policy, then
        content the policy's catalog holds; 422 otherwise."""
        rules = self.services.rules("policies.allocate").get("allocation")
        if not rules:
            return
        catalog = self.data.catalog(policy.catalog_uuid)
        known = self.data.content.price_cents(catalog, content_key) if catalog else None
        low, high = rules["price-ratio"]
        if known is not None and not low * known <= price <= high * known:
            message = (
                f"Requested price {price} for {content_key} outside of acceptable interval on "
                f"canonical course price of {known}."
            )
            refusal = rules["price-refusal"]
            raise ApiError(
                422,
                [
                    {
                        "reason": refusal["reason"],
                        "user_message": refusal["user_message"],
                        "error_message": str([message]),
                        "policy_uuids": [policy.uuid],
                    }
                ],
            )
        if not policy.active:
            raise ApiError(422, [_refusal(rules["inactive-refusal"]["reason"], NO_FUNDS, policy.uuid)])
        outside = rules.get("outside-catalog-refusal")
        if outside and not (catalog and self.data.content.holds(catalog, content_key)):
            raise ApiError(422, [_refusal(outside["reason"], outside["user_message"], policy.uuid)])

    def policies(self, call: Call) -> Reply:
        customer = query_uuid(call.query, "enterprise_customer_uuid", required=True)
        active = query_bool(call.query, "active")
        policy_type = call.query.get("policy_type") or None
        rows = [
            policy
            for policy in self.data.policies_of(customer or "")
            if (active is None or policy.active == active)
            and (policy_type is None or policy.policy_type == policy_type)
        ]
        page = self.pages.page(call, "policies.list", len(rows), "policies", "page_size")
        wire = [self.data.policy_wire(policy) for policy in rows[page.start : page.end]]
        return self.pages.paged(call, "policies.list", page, wire, current_page=page.number, start=page.start)

    # ------------------------------------------------------------------ assignments

    def assignments(self, call: Call) -> Reply:
        configuration = self._configuration(call)
        records = self.data.assignments(configuration)
        if any(name in call.query for name in ASSIGNMENT_QUERY):  # every record read, as a scan would
            rows: Sequence[AssignmentRecord] = _order_assignments(
                _filter_assignments(records, call.query), call.query.get("ordering")
            )
            counts = _learner_state_counts(rows)
        else:  # in creation order, the page's records alone made, the counts kept
            rows, counts = records, records.learner_state_counts()
        page = self.pages.page(call, "assignments.list", len(rows), "assignments", "page_size")
        return self.pages.paged(
            call,
            "assignments.list",
            page,
            [record.wire() for record in rows[page.start : page.end]],
            current_page=page.number,
            learner_state_counts=_ranked(counts),
        )

    def remind(self, call: Call) -> Reply:
        """200 with an empty body; 422, empty too, when any assignment was not found or not
        remindable (the others are reminded all the same), as enterprise-access answers."""
        configuration = self._configuration(call)
        uuids = self._assignment_uuids(call)
        outcome = self.data.remind(configuration, uuids)
        return _all_or_422(self._refused(call, "assignments.remind", uuids, outcome["non_remindable"]))

    def cancel(self, call: Call) -> Reply:
        """200 with an empty body; 422, empty too, when any assignment was not found or not
        cancelable (the others are cancelled all the same), as enterprise-access answers."""
        configuration = self._configuration(call)
        uuids = self._assignment_uuids(call)
        outcome = self.data.cancel(configuration, uuids)
        return _all_or_422(self._refused(call, "assignments.cancel", uuids, outcome["non_cancelable"]))

    def _refused(
        self, call: Call, operation: str, asked: Sequence[str], skipped: Sequence[str]
    ) -> Sequence[str]:
        """The assignments that make the answer 422: all those skipped, or, where the service
        refuses only missing ones (``refuses-skipped: false``), those it did not find."""
        if self.services.rules(operation).get("refuses-skipped", True):
            return skipped
        records = self.data.assignments(call.params["configuration"].lower())
        return [uuid for uuid in asked if records.by_uuid(uuid.lower()) is None]

    def _configuration(self, call: Call) -> str:
        configuration = call.params["configuration"].lower()
        if not valid_uuid(configuration) or not self.data.has_configuration(configuration):
            raise not_found()
        return configuration

    @staticmethod
    def _assignment_uuids(call: Call) -> list[str]:
        uuids = call.json("assignment_uuids").strings("assignment_uuids")
        malformed = [value for value in uuids if not valid_uuid(value)]
        if malformed:
            raise ApiError(400, {"assignment_uuids": [f"Must be a valid UUID: {malformed[0]!r}."]})
        return uuids


def _filter_assignments(rows: Sequence[AssignmentRecord], query: MultiMapping[str]) -> list[AssignmentRecord]:
    """The assignment list's filters: exact, ``__in`` (comma-separated) and ``search``."""
    selected: Iterable[AssignmentRecord] = rows
    for name in ("content_key", "learner_email", "learner_state", "state"):
        selected = _keep(selected, name, _wanted(query, name))
    user_ids = _user_ids(query)
    if user_ids is not None:
        selected = (record for record in selected if record.lms_user_id in user_ids)
    search = (query.get("search") or "").strip().lower()
    if search:
        selected = (record for record in selected if search in _searchable(record))
    return list(selected)


def _wanted(query: MultiMapping[str], name: str) -> set[str] | None:
    values: set[str] | None = None
    exact = query.get(name)
    if exact:
        values = {exact.lower()}
    listed = query_csv(query, f"{name}__in")
    if listed is not None:
        values = (
            {value.lower() for value in listed} & values
            if values is not None
            else {value.lower() for value in listed}
        )
    return values


def _keep(rows: Iterable[AssignmentRecord], name: str, wanted: set[str] | None) -> Iterable[AssignmentRecord]:
    if wanted is None:
        return rows
    return (record for record in rows if (getattr(record, name) or "").lower() in wanted)


def _user_ids(query: MultiMapping[str]) -> set[int | None] | None:
    ids: set[int | None] | None = None
    exact = query_int(query, "lms_user_id")
    if exact is not None:
        ids = {exact}
    listed = query_csv(query, "lms_user_id__in")
    if listed is not None:
        try:
            numbers: set[int | None] = {int(value) for value in listed}
        except ValueError:
            raise ApiError(400, {"lms_user_id__in": ["Enter a whole number."]}) from None
        ids = numbers & ids if ids is not None else numbers
    return ids


def _searchable(record: AssignmentRecord) -> str:
    return " ".join(filter(None, (record.learner_email, record.content_title, record.content_key))).lower()


def _order_assignments(rows: list[AssignmentRecord], ordering: str | None) -> list[AssignmentRecord]:
    ordered = sorted(rows, key=lambda record: record.position)
    for name in reversed([part.strip() for part in (ordering or "").split(",") if part.strip()]):
        key = ASSIGNMENT_ORDERING.get(name.lstrip("-"))
        if key is not None:
            ordered = sorted_nulls_last(ordered, key, descending=name.startswith("-"))
    return ordered


def _learner_state_counts(rows: Iterable[AssignmentRecord]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for record in rows:
        if record.learner_state:
            counts[record.learner_state] = counts.get(record.learner_state, 0) + 1
    return counts


def _ranked(counts: Mapping[str, int]) -> list[dict[str, Any]]:
    """Learner states by count, the most first, as the list's ``learner_state_counts``."""
    ranked = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
    return [{"learner_state": state, "count": count} for state, count in ranked]


def _all_or_422(skipped: Sequence[str]) -> Reply:
    if skipped:
        raise ApiError(422, None)
    return Reply(None)


def _refusal(reason: str, user_message: str, policy_uuid: str) -> dict[str, Any]:
    """One reason of an allocation refusal (422), as enterprise-access words it."""
    return {
        "reason": reason,
        "user_message": user_message,
        "metadata": {"enterprise_administrators": []},
        "policy_uuids": [policy_uuid],
    }
