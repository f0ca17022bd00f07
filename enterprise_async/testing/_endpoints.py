"""Every endpoint of the reference: read the request, apply the transition, shape the answer.

Handlers are plain functions of a ``Call`` (the request, already routed and authenticated) that
return a ``Reply`` or raise ``ApiError``; the server renders either as JSON or XML. Nothing here
knows about sockets, tokens or faults.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any, Final, Literal

from attrs import field, frozen
from multidict import MultiMapping

from .._spec import MaxProductItems, Operation, Pagination
from ._data import plan_as_served
from ._jobs import EnrollmentJobs
from ._pages import DEFAULT_PAGE_SIZES, PageSlice, page_envelope, page_links, requested_page
from ._parsing import Body, json_body, query_bool, query_csv, query_int, query_uuid, valid_uuid
from ._records import AssignmentRecord, CatalogRecord
from ._registry import GENERATED_SPEC, Route, SpecTable, aliased, build_routes
from ._replies import ApiError, Reply, not_found
from ._request_validation import RequestCheck, described
from ._services import Services
from ._state import NotEnoughLicensesError, SandboxData
from ._synthesis import Synthesizer

__all__ = ["MAX_ENROLLMENT_ITEMS", "Call", "Endpoints", "Route", "ServerOptions"]


def product_limit(operation: Operation[Any]) -> int | None:
    """The most combinations (learners times course keys) one request of ``operation`` may carry:
    its body's ``MaxProductItems`` (``x-sdk-max-product-items``), as the service enforces it."""
    checks = operation.body.checks if operation.body is not None else ()
    return next((check.maximum for check in checks if isinstance(check, MaxProductItems)), None)


MAX_ENROLLMENT_ITEMS: Final = product_limit(GENERATED_SPEC.operations["enrollments.bulk_enroll"])
"""The service's limit of learners times course keys in one bulk enrollment (license-manager's
``BULK_ENROLL_REQUEST_LIMIT``; the reference says learners plus course keys), read from the spec."""

TOO_MANY_ENROLLMENTS: Final = "Too many provided enrollments, please try a smaller request."
PLAN_LOCKED: Final = "Assignment currently locked for this subscription plan."
REVOKE_FILTERS: Final = ("user_email", "status_in")
NO_FUNDS: Final = (
    "You can't enroll right now because your organization doesn't have enough funds. "
    "Contact your administrator to request more."
)


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
}
"""Fields the assignment list orders by; others named in ``ordering`` are ignored, as DRF does."""

LearnerSummaryShape = Literal["paginated", "list"]
CatalogShape = Literal["nested", "flat"]
CatalogService = Literal["reference", "enterprise-catalog"]


@frozen
class ServerOptions:
    """How the sandbox shapes its answers where real servers differ."""

    next_host: str | None = None
    """Origin (``http://backend.internal:8000``) that ``next``/``previous`` links name, instead of
    the request's own."""
    learner_summary: LearnerSummaryShape = "paginated"
    """The learner summary as a paginated envelope, or as a plain list."""
    catalog_shape: CatalogShape = "nested"
    """Catalog contents in the nested shape, or the flat (search index) one."""
    catalog_service: CatalogService = "reference"
    """Catalogs as the reference describes them, or as openedx/enterprise-catalog serves them:
    contents in its serializer's shape with learner pathways and videos among them, and lookups by
    key through its by-key view (JSON only: 406 to XML; a run key answers the run's course)."""
    page_sizes: Mapping[str, int] = field(factory=lambda: dict(DEFAULT_PAGE_SIZES))
    """Default page size of each listing (``policies``, ``assignments``, ``subscriptions``,
    ``catalogs``, ``contents``, ``learner_summary``)."""
    largest_pages: Mapping[str, int] = field(factory=dict)
    """Largest page of a listing, below the spec's maximum (a sandbox paging small on purpose)."""


@frozen
class Call:
    """A routed, authenticated request, as the handlers read it."""

    params: Mapping[str, str]
    query: MultiMapping[str]
    body: bytes
    content_type: str
    origin: str
    """Scheme and host that links in the answer name."""
    path: str
    """The raw (still percent-encoded) path."""
    accept: str = ""
    """The request's ``Accept`` header."""

    def json(self, *fields: str) -> Body:
        """The JSON body, refusing fields other than ``fields``."""
        return json_body(self.body, self.content_type, allowed=frozenset(fields))


Handler = Callable[[Call], Reply]


class Endpoints:
    """The API's endpoints over one ``SandboxData``."""

    def __init__(self, data: SandboxData, options: ServerOptions, services: Services | None = None) -> None:
        self.data = data
        self.options = options
        self.services = services or Services("reference", {}, {}, data, data.customers[0].uuid)
        """The services' rules (``x-sdk-service``) the handlers read: none under the reference."""
        sizes = dict(DEFAULT_PAGE_SIZES)
        sizes.update(options.page_sizes)
        self._sizes = sizes
        self._operations: Mapping[str, Operation[Any]] = GENERATED_SPEC.operations
        self._envelopes: Mapping[str, tuple[str, ...]] = {}
        self.jobs: EnrollmentJobs | None = None
        """The bulk enrollment jobs run to their results (``testing/_jobs.py``), set by the sandbox."""

    def routes(self, spec: SpecTable = GENERATED_SPEC) -> list[Route]:
        """A route for every operation of ``spec`` (the token route is the server's own): the
        stateful handler registered under its name, else an answer synthesized from its schemas.
        The handlers page as ``spec`` says (parameters and envelope of each ``x-sdk-pagination``),
        and a required field their records lack is filled in from the schema (``Synthesizer.complete``)."""
        synthesizer = Synthesizer(spec.components, self.data.seed)
        self._operations = spec.operations
        self._envelopes = {
            name: synthesizer.envelope_fields(spec.responses.get(name, {}), operation.pagination)
            for name, operation in spec.operations.items()
            if operation.pagination is not None
        }

        def synthesized(operation: Operation[Any]) -> Handler:
            responses = spec.responses.get(operation.name, {})
            description = spec.requests.get(operation.name) or described(operation)
            request = RequestCheck(operation, description, spec.components)

            def answer(call: Call) -> Reply:
                request.check(call.params, call.query, call.body, call.content_type)
                return synthesizer.answer(
                    operation,
                    responses,
                    params=call.params,
                    query=call.query,
                    origin=call.origin,
                    path=call.path,
                )

            return answer

        def completing(name: str, handler: Handler) -> Handler:
            complete = synthesizer.completer(name, spec.responses.get(name, {}))

            def answer(call: Call) -> Reply:
                return complete(handler(call), call.params)

            return answer

        handlers = {name: completing(name, handler) for name, handler in self.handlers().items()}
        return build_routes(spec, handlers, synthesized)

    def handlers(self) -> dict[str, Handler]:
        """The stateful handlers, by operation name; each reads its path parameters by the short
        names it was written with (``policy``), aliases of the spec's (``policy_uuid``)."""
        return {
            "policies.allocate": aliased(self.allocate, policy="policy_uuid"),
            "policies.list": self.policies,
            "assignments.list": aliased(self.assignments, configuration="assignment_configuration_uuid"),
            "assignments.remind": aliased(self.remind, configuration="assignment_configuration_uuid"),
            "assignments.cancel": aliased(self.cancel, configuration="assignment_configuration_uuid"),
            "subscriptions.list": self.subscriptions,
            "subscriptions.assign_licenses": aliased(self.assign_licenses, plan="subscription_plan_uuid"),
            "subscriptions.bulk_revoke": aliased(self.bulk_revoke, plan="subscription_plan_uuid"),
            "enrollments.bulk_enroll": self.bulk_enroll,
            "enrollments.job_status": self.job_status,
            "catalogs.list": self.catalogs,
            "catalogs.contents": aliased(self.contents, catalog="catalog_id"),
            "catalogs.course": aliased(self.course, catalog="catalog_id", key="course_key"),
            "catalogs.course_run": aliased(self.course_run, catalog="catalog_id", key="course_run_id"),
            "catalogs.program": aliased(self.program, catalog="catalog_id", key="program_id"),
            "learner_summary.list": aliased(self.learner_summary, customer="enterprise_uuid"),
        }

    # ------------------------------------------------------------------ policies

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
        page = self._page(call, "policies.list", len(rows), "policies", "page_size")
        wire = [self.data.policy_wire(policy) for policy in rows[page.start : page.end]]
        return self._paged(call, "policies.list", page, wire, current_page=page.number, start=page.start)

    # ------------------------------------------------------------------ assignments

    def assignments(self, call: Call) -> Reply:
        configuration = self._configuration(call)
        rows = _filter_assignments(self.data.assignments(configuration), call.query)
        rows = _order_assignments(rows, call.query.get("ordering"))
        page = self._page(call, "assignments.list", len(rows), "assignments", "page_size")
        return self._paged(
            call,
            "assignments.list",
            page,
            [record.wire() for record in rows[page.start : page.end]],
            current_page=page.number,
            learner_state_counts=_learner_state_counts(rows),
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
        configuration = call.params["configuration"].lower()
        found = {record.uuid for record in self.data.assignments(configuration)}
        return [uuid for uuid in asked if uuid.lower() not in found]

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

    # ------------------------------------------------------------------ subscriptions

    def subscriptions(self, call: Call) -> Reply:
        customer = query_uuid(call.query, "enterprise_customer_uuid", required=False)
        current = query_bool(call.query, "current")
        plans = [
            plan
            for plan in self.data.plans
            if (customer is None or plan.customer_uuid == customer)
            and (not current or self.data.current_plan(plan))
        ]
        page = self._page(call, "subscriptions.list", len(plans), "subscriptions", "page_size")
        rules = self.services.rules("subscriptions.list")
        wire = [self.data.plan_wire(plan) for plan in plans[page.start : page.end]]
        if rules.get("wire") == "service":
            wire = [
                plan_as_served(plan, row)
                for plan, row in zip(plans[page.start : page.end], wire, strict=True)
            ]
        return self._paged(call, "subscriptions.list", page, wire)

    def assign_licenses(self, call: Call) -> Reply:
        plan = self._plan(call)
        if self.data.plan_locked(plan):
            raise ApiError(423, PLAN_LOCKED)
        body = call.json("user_emails", "user_sfids", "greeting", "closing", "notify_users")
        emails = body.emails("user_emails")
        sfids = body.optional_strings("user_sfids", blank=True)
        if sfids and len(sfids) != len(emails):  # LicenseAdminAssignActionSerializer.validate
            raise _non_field("Number of Salesforce IDs did not match number of provided user emails.")
        body.optional_text("greeting")
        body.optional_text("closing")
        body.boolean("notify_users")
        if plan.expiration <= self.data.anchor:
            raise ApiError(
                400,
                {"detail": f"Subscription plan {plan.uuid} has expired; its licenses cannot be assigned."},
            )
        try:
            return Reply(self.data.assign_licenses(plan, emails))
        except NotEnoughLicensesError as error:
            raise ApiError(400, str(error)) from None

    def bulk_revoke(self, call: Call) -> Reply:
        body = call.json("user_emails", "filters")
        if not body.has("user_emails") and not body.has("filters"):
            raise _non_field("Either user_emails or filters must be provided.")
        if body.has("user_emails") and body.has("filters"):
            raise _non_field("Either user_emails or filters must be provided, but not both.")
        filters = None if body.has("user_emails") else _revoke_filters(body)
        emails = body.emails("user_emails") if filters is None else []
        plan = self.data.plan(call.params["plan"].lower())
        if plan is None:
            missing = f"No SubscriptionPlan identified by {call.params['plan']} exists"
            raise ApiError(404, {"unsuccessful_revocations": [{"error": missing}]})
        if filters is not None:
            emails = self.data.filtered_emails(plan, filters)
        left = self.data.revocations_left(plan)
        if left is not None and len(emails) > left:
            refused = "Plan does not have enough revocations remaining."
            raise ApiError(400, {"unsuccessful_revocations": [{"error": refused}]})
        outcome = self.data.revoke_emails(plan, emails)
        if outcome.unsuccessful and not outcome.successful:  # license-manager's bulk_revoke: errors only
            return Reply({"unsuccessful_revocations": outcome.unsuccessful}, status=outcome.status)
        return Reply(
            {"successful_revocations": outcome.successful, "unsuccessful_revocations": outcome.unsuccessful},
            status=outcome.status,
        )

    def _plan(self, call: Call) -> Any:
        plan = self.data.plan(call.params["plan"].lower())
        if plan is None:
            raise not_found()
        return plan

    # ------------------------------------------------------------------ enrollment

    def bulk_enroll(self, call: Call) -> Reply:
        customer = query_uuid(call.query, "enterprise_customer_uuid", required=True)
        assert customer is not None
        if self.data.customer(customer) is None:
            raise not_found("Enterprise customer not found.")
        body = call.json("emails", "course_run_keys", "notify")
        emails = body.emails("emails")
        keys = body.strings("course_run_keys")
        notify = body.boolean("notify")
        limit = _smallest(
            self.services.rules("enrollments.bulk_enroll").get("max-product-items"),
            product_limit(self._operations["enrollments.bulk_enroll"]),
        )
        if limit is not None and len(emails) * len(keys) > limit:
            raise ApiError(400, TOO_MANY_ENROLLMENTS)
        job = self.data.enroll(customer, emails, keys, notify)
        if self.jobs is not None:
            self.jobs.started(job)
        return Reply({"job_id": job.job_id}, status=201)

    def job_status(self, call: Call) -> Reply:
        query_uuid(call.query, "enterprise_customer_uuid", required=True)
        job_id = query_uuid(call.query, "bulk_enrollment_job_uuid", required=True)
        status = self.jobs.status(str(job_id)) if self.jobs is not None else None
        if status is None:
            raise not_found()
        return Reply(status)

    # ------------------------------------------------------------------ catalogs

    def catalogs(self, call: Call) -> Reply:
        catalogs = self.services.listed("catalogs.list", self.data.catalogs)
        page = self._page(call, "catalogs.list", len(catalogs), "catalogs", "page_size")
        wire = [catalog.wire() for catalog in catalogs[page.start : page.end]]
        return self._paged(call, "catalogs.list", page, wire)

    def contents(self, call: Call) -> Reply:
        catalog = self._catalog(call)
        page = self._page(call, "catalogs.contents", catalog.item_count, "contents", "page_size")
        content = self.data.content
        if self.options.catalog_service == "enterprise-catalog":
            served = [content.served(catalog, index) for index in range(page.start, page.end)]
            head = {
                "uuid": catalog.uuid,
                "title": catalog.title,
                "enterprise_customer": catalog.customer_uuid,
            }
            return self._paged(call, "catalogs.contents", page, served, head=head)
        items = (content.item(catalog, index) for index in range(page.start, page.end))
        if self.options.catalog_shape == "nested":
            return self._paged(call, "catalogs.contents", page, list(items))
        flat = [
            content.flat(item, content.kind(index))
            for index, item in zip(range(page.start, page.end), items, strict=True)
        ]
        head = {"uuid": catalog.uuid, "title": catalog.title, "enterprise_customer": catalog.customer_uuid}
        return self._paged(call, "catalogs.contents", page, flat, head=head)

    def course(self, call: Call) -> Reply:
        return self._content(call, self.data.content.course, "course")

    def course_run(self, call: Call) -> Reply:
        return self._content(call, self.data.content.course_run, "courserun")

    def program(self, call: Call) -> Reply:
        return self._content(call, self.data.content.program, "program")

    def _content(
        self,
        call: Call,
        find: Callable[[CatalogRecord, str], dict[str, Any] | None],
        kind: Literal["course", "courserun", "program"],
    ) -> Reply:
        catalog = self._catalog(call)
        if self.options.catalog_service == "enterprise-catalog":
            return self._by_key(call, catalog, find, kind)
        item = find(catalog, call.params["key"])
        if item is None:
            noun = "course run" if kind == "courserun" else kind
            raise not_found(f"No {noun} {call.params['key']!r} in catalog {catalog.uuid}.")
        if self.options.catalog_shape == "flat":
            return Reply(self.data.content.flat(item, kind))
        return Reply(item)

    def _by_key(
        self,
        call: Call,
        catalog: CatalogRecord,
        find: Callable[[CatalogRecord, str], dict[str, Any] | None],
        kind: Literal["course", "courserun", "program"],
    ) -> Reply:
        """enterprise-catalog's lookup by key: JSON only, and a run key matches its course too."""
        if "application/json" not in call.accept:
            raise ApiError(406, {"detail": "Could not satisfy the request Accept header."})
        key = call.params["key"]
        course = self.data.content.course_of_run(catalog, key) if kind == "courserun" else None
        item = course or find(catalog, key)
        kind = "course" if course is not None else kind
        if item is None:
            raise not_found("No matching content in any catalog for this customer")
        return Reply(self.data.content.flat(item, kind))

    def _catalog(self, call: Call) -> CatalogRecord:
        catalog = self.data.catalog(call.params["catalog"].lower())
        if catalog is None:
            raise not_found()
        return catalog

    # ------------------------------------------------------------------ learner summary

    def learner_summary(self, call: Call) -> Reply:
        customer = call.params["customer"].lower()
        if not valid_uuid(customer) or self.data.customer(customer) is None:
            raise not_found()
        rows = _order_rows(self.data.summaries(customer), call.query.get("ordering") or "last_activity_date")
        operation = "learner_summary.list"
        unpaged = self.options.learner_summary == "list" or self.services.streams(operation, call.accept)
        if unpaged:  # a plain list, or every row for the CSV the service streams
            return Reply(self.services.emitted(operation, rows))
        page = self._page(call, "learner_summary.list", len(rows), "learner_summary", "page_size")
        return self._paged(call, "learner_summary.list", page, rows[page.start : page.end])

    # ------------------------------------------------------------------ paging

    def _pagination(self, operation: str) -> Pagination:
        """How ``operation`` pages, as the spec served says (the items under ``results`` with
        ``count``/``next`` links, ``?page=N``, if it does not page)."""
        found = self._operations.get(operation)
        if found is None or found.pagination is None:
            return Pagination(page_model=dict, item_type=Any)
        return found.pagination

    def _page(self, call: Call, operation: str, count: int, listing: str, size_param: str) -> PageSlice:
        """The page asked for, by the page and size parameters of ``operation``'s pagination
        (``size_param`` when the spec names none: the service accepts it all the same)."""
        pagination = self._pagination(operation)
        return requested_page(
            call.query,
            count,
            pagination=pagination,
            default_size=self._sizes[listing],
            size_param=pagination.size_param or size_param,
            page_param=pagination.page_param or "page",
            max_size=_smallest(pagination.max_size, self.options.largest_pages.get(listing)),
            max_given=self.services.max_page_size(operation),
            fallback=self.services.page_size_fallback(operation),
        )

    def _paged(
        self,
        call: Call,
        operation: str,
        page: PageSlice,
        items: list[Any],
        *,
        head: Mapping[str, Any] | None = None,
        **extra: Any,
    ) -> Reply:
        """A page of ``items`` in the envelope ``operation``'s pagination describes, with the
        operation's own fields ``head`` and ``extra`` (dropped from a bare list), in the order
        of the envelope's schema."""
        pagination = self._pagination(operation)
        links = page_links(
            page,
            origin=call.origin,
            path=call.path,
            query=list(call.query.items()),
            page_param=pagination.page_param or "page",
        )
        items = self.services.emitted(operation, items)  # the serializer's fields, no more
        envelope = self.services.rules(operation).get("envelope")
        if envelope is not None and pagination.items is not None:
            fields = {**(head or {}), **extra}
            return Reply(_service_envelope(envelope, pagination.items, page, items, links, fields))
        body = page_envelope(
            pagination, items, count=page.count, pages=page.pages, size=page.size, links=links
        )
        if not isinstance(body, dict):
            return Reply(body)
        order = {name: rank for rank, name in enumerate(self._envelopes.get(operation, ()))}
        fields = {**(head or {}), **body, **extra}
        return Reply(dict(sorted(fields.items(), key=lambda field: order.get(field[0], len(order)))))


def _service_envelope(
    envelope: Sequence[str],
    items_field: str,
    page: PageSlice,
    items: list[Any],
    links: tuple[str | None, str | None],
    extra: Mapping[str, Any],
) -> dict[str, Any]:
    """A page in the envelope a service writes (``x-sdk-service`` ``envelope``: its fields in
    order, e.g. edx-drf-extensions' DefaultPagination ``next, previous, count, num_pages,
    current_page, start, results``), and no other field."""
    values = {
        "next": links[0],
        "previous": links[1],
        "count": page.count,
        "num_pages": page.pages,
        "current_page": page.number,
        "start": page.start,
        items_field: items,
        **extra,
    }
    return {name: values[name] for name in envelope if name in values}


def _smallest(*sizes: int | None) -> int | None:
    given = [size for size in sizes if size is not None]
    return min(given) if given else None


# ---------------------------------------------------------------------------------- assignment queries


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
            ordered = _sorted_nulls_last(ordered, key, descending=name.startswith("-"))
    return ordered


def _sorted_nulls_last(rows: list[Any], key: Callable[[Any], Any], *, descending: bool) -> list[Any]:
    present = [row for row in rows if key(row) is not None]
    missing = [row for row in rows if key(row) is None]
    return sorted(present, key=key, reverse=descending) + missing


def _learner_state_counts(rows: Iterable[AssignmentRecord]) -> list[dict[str, Any]]:
    counts: dict[str, int] = {}
    for record in rows:
        if record.learner_state:
            counts[record.learner_state] = counts.get(record.learner_state, 0) + 1
    ranked = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
    return [{"learner_state": state, "count": count} for state, count in ranked]


# ---------------------------------------------------------------------------------- other queries


def _revoke_filters(body: Body) -> list[dict[str, Any]]:
    """The filters as license-manager's serializer checks them: ``{"name", "filter_value"}`` each."""
    filters = body.objects("filters")
    assert filters is not None
    for selector in filters:
        name, value = selector.get("name"), selector.get("filter_value")
        if name not in REVOKE_FILTERS:
            raise _non_field(f"Malformed filters, supported filters are {list(REVOKE_FILTERS)}.")
        if name == "user_email" and not isinstance(value, str):
            raise _non_field("Malformed filters, user_email must be a string.")
        if name == "status_in" and not (
            isinstance(value, list) and all(isinstance(item, str) for item in value)
        ):
            raise _non_field("Malformed filters, status_in must be a list of strings.")
    return filters


def _all_or_422(skipped: Sequence[str]) -> Reply:
    if skipped:
        raise ApiError(422, None)
    return Reply(None)


def _non_field(message: str) -> ApiError:
    """A 400 of Django REST framework for a serializer's ``validate``."""
    return ApiError(400, {"non_field_errors": [message]})


def _refusal(reason: str, user_message: str, policy_uuid: str) -> dict[str, Any]:
    """One reason of an allocation refusal (422), as enterprise-access words it."""
    return {
        "reason": reason,
        "user_message": user_message,
        "metadata": {"enterprise_administrators": []},
        "policy_uuids": [policy_uuid],
    }


def _order_rows(rows: Sequence[dict[str, Any]], ordering: str) -> list[dict[str, Any]]:
    """Learner summary rows ordered by one response field (``-field`` descending), nulls last."""
    name = ordering.strip().lstrip("-")
    if rows and name not in rows[0]:  # an unknown field is ignored, as DRF's OrderingFilter does
        name, ordering = "last_activity_date", "last_activity_date"

    def key(row: dict[str, Any]) -> Any:
        return row.get(name)

    return _sorted_nulls_last(list(rows), key, descending=ordering.strip().startswith("-"))
