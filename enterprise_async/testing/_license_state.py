"""The live licenses of a sandbox's subscription plans, and license-manager's transitions on them.

One job: what ``assign_licenses`` and ``bulk_revoke`` do to a plan's licenses, and the plan's
assignment lock; ``SandboxData`` inherits it (``PlanLicenses``). Where the reference is silent, as
the sandbox models them:

- assign licenses takes unassigned licenses of the plan; when there are not enough of them,
  nothing is assigned (``NotEnoughLicensesError``).
- bulk revoke honours the plan's revocation cap: past it, a revocation fails with status 400.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from attrs import frozen

from ._parsing import distinct
from ._records import LicenseRecord, PlanRecord

__all__ = ["NotEnoughLicensesError", "PlanLicenses", "Revocation"]

REVOCABLE_STATUSES: Final = ("activated", "assigned")
"""license-manager's ``REVOCABLE_LICENSE_STATUSES`` (apps/subscriptions/constants.py), in its order."""
NOT_REVOCABLE: Final = "No license for email {email} exists in plan {plan} with a status in {statuses}"
"""``LicenseNotFoundError`` (license-manager apps/subscriptions/exceptions.py), to which bulk_revoke
adds ``. user_email: {email}`` (apps/api/v1/views.py)."""


class NotEnoughLicensesError(Exception):
    """The plan has fewer unassigned licenses than users to assign (license-manager's words)."""

    def __init__(self, needed: int, available: int) -> None:
        super().__init__(
            "There are not enough licenses that can be assigned to complete your request."
            f"You attempted to assign {needed} licenses, "
            f"but there are only {available} potentially available."
        )
        self.needed = needed
        self.available = available


@frozen
class Revocation:
    """What a bulk revoke did: revoked licenses and failures, each as the wire sends them."""

    successful: list[dict[str, Any]]
    unsuccessful: list[dict[str, Any]]

    @property
    def status(self) -> int:
        """200 all done, 207 some done, 404 (or 400 past the cap) none done."""
        if not self.unsuccessful:
            return 200
        if self.successful:
            return 207
        statuses = {failure["error_response_status"] for failure in self.unsuccessful}
        return 404 if statuses == {404} else 400


class PlanLicenses:
    """The licenses of every plan, by plan uuid, and the transitions requests apply to them."""

    def __init__(
        self,
        make: Callable[[PlanRecord], list[LicenseRecord]],
        counted: Callable[[PlanRecord], dict[str, int]],
    ) -> None:
        self._make = make
        self._counted = counted
        self._licenses: dict[str, list[LicenseRecord]] = {}
        self._counts: dict[str, dict[str, int]] = {}
        self._plan_locks: dict[str, int | None] = {}

    if TYPE_CHECKING:

        def now(self) -> datetime.datetime:
            """The wall clock of the records requests create (``SandboxData.now``)."""

        def plan(self, plan_uuid: str) -> PlanRecord | None:
            """The plan with this uuid (``SandboxData.plan``)."""

    def licenses(self, plan_uuid: str) -> list[LicenseRecord]:
        """The live licenses of a plan (empty for an unknown one); made from the seed (``make``)
        when first asked for."""
        if plan_uuid not in self._licenses:
            plan = self.plan(plan_uuid)
            if plan is None:
                return []
            self._licenses[plan_uuid] = self._make(plan)
        return self._licenses[plan_uuid]

    def license_counts(self, plan: PlanRecord) -> dict[str, int]:
        """The plan's licenses by status: counted from the seed (``counted``), without making
        them, then kept as requests change them. Read it, do not change it."""
        counts = self._counts.get(plan.uuid)
        if counts is None:
            counts = self._counts[plan.uuid] = self._counted(plan)
        return counts

    def assign_licenses(self, plan: PlanRecord, emails: Sequence[str]) -> dict[str, Any]:
        """Assign a license to each e-mail not yet tied to a non-revoked license of the plan."""
        licenses = self.licenses(plan.uuid)
        held = {
            license.user_email.lower()
            for license in licenses
            if license.user_email and license.status != "revoked"
        }
        wanted = [email for email in distinct(emails) if email.lower() not in held]
        free = [license for license in licenses if license.status == "unassigned"]
        if len(free) < len(wanted):
            raise NotEnoughLicensesError(len(wanted), len(free))
        now = self.now()
        assignments = []
        for email, license in zip(wanted, free[: len(wanted)], strict=True):
            self._moved(plan, license, "assigned")
            license.user_email, license.assigned = email, now
            assignments.append({"user_email": email, "license": license.uuid})
        return {
            "num_successful_assignments": len(assignments),
            "num_already_associated": len(distinct(emails)) - len(wanted),
            "license_assignments": assignments,
        }

    def revoke_emails(self, plan: PlanRecord, emails: Sequence[str | None]) -> Revocation:
        """Revoke the license of each e-mail in turn (None, an unassigned license's, names none)."""
        outcome = Revocation(successful=[], unsuccessful=[])
        for email in emails:
            self._revoke_email(plan, email, outcome)
        return outcome

    def filtered_emails(self, plan: PlanRecord, filters: Sequence[dict[str, Any]]) -> list[str | None]:
        """The e-mail of each of the plan's non-revoked licenses that every filter selects, as
        license-manager reads them (``user_email`` a case-insensitive substring, ``status_in`` a
        list of statuses): one per license, None for an unassigned one (``values_list``)."""
        selected = [license for license in self.licenses(plan.uuid) if license.status != "revoked"]
        for selector in filters:
            value = selector["filter_value"]
            if selector["name"] == "user_email":
                selected = [item for item in selected if value.lower() in (item.user_email or "").lower()]
            else:
                selected = [item for item in selected if item.status in value]
        return [license.user_email for license in selected]

    def revocations_left(self, plan: PlanRecord) -> int | None:
        """Revocations the plan still allows (None: no cap)."""
        return self._revocations_left(plan) if plan.revocation_cap else None

    def lock_plan(self, plan_uuid: str, *, attempts: int | None = None) -> None:
        """Hold the plan's assignment lock, as a concurrent assignment would: license assignment
        answers 423 Locked for the next ``attempts`` requests (every request until
        ``unlock_plan`` when None)."""
        self._plan_locks[plan_uuid.lower()] = attempts

    def unlock_plan(self, plan_uuid: str) -> None:
        """Release the plan's assignment lock."""
        self._plan_locks.pop(plan_uuid.lower(), None)

    def plan_locked(self, plan: PlanRecord) -> bool:
        """Whether an assignment request finds the plan locked (counting down a limited lock)."""
        if plan.uuid not in self._plan_locks:
            return False
        left = self._plan_locks[plan.uuid]
        if left is not None:
            if left <= 1:
                del self._plan_locks[plan.uuid]
            else:
                self._plan_locks[plan.uuid] = left - 1
        return True

    def _revoke_email(self, plan: PlanRecord, email: str | None, outcome: Revocation) -> None:
        held = [
            license
            for license in self.licenses(plan.uuid)
            if email is not None and (license.user_email or "").lower() == email.lower()
        ]
        revocable = next((license for license in held if license.status in REVOCABLE_STATUSES), None)
        if revocable is not None:
            self._revoke(plan, revocable, outcome)
            return
        error = NOT_REVOCABLE.format(email=email, plan=plan.uuid, statuses=list(REVOCABLE_STATUSES))
        outcome.unsuccessful.append(
            {"error": f"{error}. user_email: {email}", "error_response_status": 404, "user_email": email}
        )

    def _revoke(self, plan: PlanRecord, license: LicenseRecord, outcome: Revocation) -> None:
        email = license.user_email or ""
        if plan.revocation_cap and self._revocations_left(plan) <= 0:
            outcome.unsuccessful.append(
                {
                    "error": f"The revocation cap of subscription plan {plan.uuid} has been reached.",
                    "error_response_status": 400,
                    "user_email": email,
                }
            )
            return
        original = license.status
        self._moved(plan, license, "revoked")
        license.revoked = self.now()
        outcome.successful.append(
            {"license_uuid": license.uuid, "original_status": original, "user_email": email}
        )

    def _moved(self, plan: PlanRecord, license: LicenseRecord, status: str) -> None:
        """Give ``license`` its new ``status``, and the plan's counts with it."""
        counts = self.license_counts(plan)
        counts[license.status] -= 1
        counts[status] += 1
        license.status = status

    def _revocations_left(self, plan: PlanRecord) -> int:
        return plan.revocation_limit - self.license_counts(plan)["revoked"]
