"""license-manager's endpoints in the sandbox: subscription plans (list, assign licenses, bulk
revoke) and bulk enrollment (start a job, read its status).

One job: read these requests, apply the transitions on ``SandboxData`` (``_license_state``) and
the enrollment jobs (``_jobs``), shape the answers as license-manager does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from .._spec import MaxProductItems, Operation
from ._answer_pages import PagedAnswers, smallest
from ._call import Call, Handler
from ._jobs import EnrollmentJobs
from ._license_state import NotEnoughLicensesError
from ._parsing import Body, distinct, query_bool, query_uuid
from ._plan_data import plan_as_served
from ._records import PlanRecord
from ._registry import GENERATED_SPEC, aliased
from ._replies import ApiError, Reply, not_found
from ._server_options import ServerOptions
from ._service_handlers import ServiceHandlers
from ._services import Services
from ._state import SandboxData

__all__ = ["MAX_ENROLLMENT_ITEMS", "LicenseHandlers", "product_limit"]


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


class LicenseHandlers(ServiceHandlers):
    """The subscription and enrollment endpoints over one ``SandboxData``."""

    def __init__(
        self,
        data: SandboxData,
        options: ServerOptions,
        services: Services,
        pages: PagedAnswers,
        jobs: EnrollmentJobs | None,
    ) -> None:
        super().__init__(data, options, services, pages)
        self.jobs = jobs
        """The bulk enrollment jobs run to their results (``testing/_jobs.py``), if the sandbox runs them."""

    def handlers(self) -> dict[str, Handler]:
        return {
            "subscriptions.list": self.subscriptions,
            "subscriptions.assign_licenses": aliased(self.assign_licenses, plan="subscription_plan_uuid"),
            "subscriptions.bulk_revoke": aliased(self.bulk_revoke, plan="subscription_plan_uuid"),
            "enrollments.bulk_enroll": self.bulk_enroll,
            "enrollments.job_status": self.job_status,
        }

    def subscriptions(self, call: Call) -> Reply:
        customer = query_uuid(call.query, "enterprise_customer_uuid", required=False)
        current = query_bool(call.query, "current")
        customers = [customer] if customer is not None else [record.uuid for record in self.data.customers]
        plans: Sequence[PlanRecord]
        if current:
            plans = [plan for uuid in customers for plan in self.data.current_plans(uuid)]
        elif len(customers) == 1:  # made when read: the page's plans alone
            plans = self.data.plans_of(customers[0])
        else:
            plans = [plan for uuid in customers for plan in self.data.plans_of(uuid)]
        page = self.pages.page(call, "subscriptions.list", len(plans), "subscriptions", "page_size")
        rules = self.services.rules("subscriptions.list")
        wire = [self.data.plan_wire(plan) for plan in plans[page.start : page.end]]
        if rules.get("wire") == "service":
            wire = [
                plan_as_served(plan, row)
                for plan, row in zip(plans[page.start : page.end], wire, strict=True)
            ]
        return self.pages.paged(call, "subscriptions.list", page, wire)

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
        emails: list[str | None] = list(distinct(body.emails("user_emails"))) if filters is None else []
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
        query_uuid(call.query, "subscription_uuid", required=False)
        query_bool(call.query, "enroll_all")
        body = call.json("emails", "course_run_keys", "notify")
        emails = body.emails("emails")
        keys = body.strings("course_run_keys")
        notify = body.boolean("notify")
        limit = smallest(
            self.services.rules("enrollments.bulk_enroll").get("max-product-items"),
            product_limit(self.pages.operations["enrollments.bulk_enroll"]),
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


def _non_field(message: str) -> ApiError:
    """A 400 of Django REST framework for a serializer's ``validate``."""
    return ApiError(400, {"non_field_errors": [message]})
