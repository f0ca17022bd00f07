"""edx-enterprise-data's records in the sandbox's initial world: each customer's learner summary
rows (learner progress report), one per learner and course of its first catalog, row ``i`` made
from its own seeded generator when read.

Row ``i``'s last activity is ``(i * ACTIVITY_STRIDE) % ACTIVITY_DAYS`` days before the anchor's
day, so the rows in the report's default order (by ``last_activity_date``, either way) are known
without making any: those of each day, day after day, in row order (``SummaryRows.ordered``).
"""

from __future__ import annotations

import bisect
import datetime
import random
from collections.abc import Iterator, Sequence
from typing import Any, Final, overload

from . import _vocabulary as words
from ._content import CatalogContent
from ._data_size import DataSize
from ._records import (
    CatalogRecord,
    Customer,
    Learner,
    iso,
)
from ._seeded import seeded_rng

__all__ = ["ACTIVITY_DAYS", "SummaryRows"]

ACTIVITY_DAYS: Final = 60
"""The days before the anchor's a row's last activity falls on."""
ACTIVITY_STRIDE: Final = 37
"""Days between the last activities of two rows in turn (prime to ``ACTIVITY_DAYS``: each day
comes back every ``ACTIVITY_DAYS`` rows)."""
_FIRST_OF_DAY: Final = pow(ACTIVITY_STRIDE, -1, ACTIVITY_DAYS)
"""The row whose last activity is one day before the anchor's (that of ``n`` days: ``n`` times it)."""


class SummaryRows(Sequence[dict[str, Any]]):
    """A customer's learner summary rows, as the wire sends them, row ``i`` made when read (and
    not kept: a report may hold 100,000 rows)."""

    def __init__(
        self,
        seed: int,
        customer: Customer,
        learners: Sequence[Learner],
        catalog: CatalogRecord,
        content: CatalogContent,
        size: DataSize,
        anchor: datetime.datetime,
    ) -> None:
        self._seed = seed
        self._customer = customer
        self._learners = learners
        self._catalog = catalog
        self._content = content
        self._anchor = anchor
        self._courses = content.first_courses(catalog)
        self._count = size.summary_rows_per_customer if self._courses else 0
        self.made = 0
        """How many rows have been made so far (a row read twice is made twice)."""

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self._row(number) for number in range(*index.indices(self._count))]
        number = index + self._count if index < 0 else index
        if not 0 <= number < self._count:
            raise IndexError(index)
        return self._row(number)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self._row(number) for number in range(self._count))

    def __repr__(self) -> str:
        return f"<SummaryRows of {self._customer.name}: {self._count} rows>"

    def ordered(self, name: str, *, descending: bool) -> Sequence[int]:
        """The row numbers ordered by the field ``name`` (descending: the largest first; equal
        values in row order, rows without one last), as Django REST framework's ordering over
        the rows: by last activity from the layout, making none; by another field, from every
        row made once in turn."""
        if name == "last_activity_date":
            return _ByActivity(self._count, descending=descending)
        keys: list[Any] = [row.get(name) for row in self]

        def key(number: int) -> Any:
            return keys[number]

        present = sorted(
            (number for number, value in enumerate(keys) if value is not None), key=key, reverse=descending
        )
        return present + [number for number, key in enumerate(keys) if key is None]

    def _row(self, number: int) -> dict[str, Any]:
        self.made += 1
        rng = seeded_rng(self._seed, "summaries", self._customer.uuid, number)
        course = self._content.item(self._catalog, self._courses[int(rng.random() * len(self._courses))])
        learner = self._learners[number % len(self._learners)]
        activity = self._anchor.date() - datetime.timedelta(days=days_before(number))
        return _summary_row(rng, self._customer, learner, course, number, self._anchor, activity)


def days_before(number: int) -> int:
    """Days from row ``number``'s last activity to the anchor's day."""
    return number * ACTIVITY_STRIDE % ACTIVITY_DAYS


class _ByActivity(Sequence[int]):
    """Row numbers by last activity, oldest first (or newest first), each day's in row order."""

    def __init__(self, count: int, *, descending: bool) -> None:
        self._count = count
        days = range(ACTIVITY_DAYS) if descending else range(ACTIVITY_DAYS - 1, -1, -1)
        self._firsts = [days_back * _FIRST_OF_DAY % ACTIVITY_DAYS for days_back in days]
        self._ends: list[int] = []  # the rows up to the end of each day, in this order
        total = 0
        for first in self._firsts:
            total += (count - first + ACTIVITY_DAYS - 1) // ACTIVITY_DAYS if first < count else 0
            self._ends.append(total)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            return [self._number(position) for position in range(*index.indices(self._count))]
        position = index + self._count if index < 0 else index
        if not 0 <= position < self._count:
            raise IndexError(index)
        return self._number(position)

    def _number(self, position: int) -> int:
        day = bisect.bisect_right(self._ends, position)
        before = self._ends[day - 1] if day else 0
        return self._firsts[day] + ACTIVITY_DAYS * (position - before)


def _summary_row(
    rng: random.Random,
    customer: Customer,
    learner: Learner,
    course: dict[str, Any],
    number: int,
    anchor: datetime.datetime,
    activity: datetime.date,
) -> dict[str, Any]:
    run = course["course_runs"][0]
    start = datetime.date.fromisoformat(run["start"][:10])
    enrolled = start - datetime.timedelta(days=rng.randint(1, 30))
    enrolled = min(enrolled, activity - datetime.timedelta(days=rng.randint(1, 10)))  # active once enrolled
    status = ("In Progress", "Passed", "Failed", "In Progress")[number % 4]
    passed = status == "Passed"
    paid_by = ("enterprise", "learner", "enterprise", "third_party")[number % 4]
    grade = rng.randint(20, 100) / 100 if status != "In Progress" else rng.randint(0, 60) / 100
    if passed:
        grade = max(grade, 0.7)
    list_price = float(run["seats"][-1]["price"])  # a FloatField in edx-enterprise-data: a number
    unenrolled = enrolled + datetime.timedelta(days=rng.randint(3, 10)) if number % 11 == 5 else None
    return {
        "is_consent_granted": number % 9 != 4,
        "amount_learner_paid": list_price if paid_by == "learner" else 0.0,
        "contract_id": f"CONTRACT-{customer.slug[:4].upper()}-{2024 + number % 3}",
        "coupon_code": f"ENT{rng.getrandbits(32):08X}" if paid_by == "third_party" else None,
        "coupon_name": f"{customer.name} Q{1 + number % 4} codes" if paid_by == "third_party" else None,
        "course_api_url": f"/api/courses/v1/courses/{run['key']}",
        "course_duration": run["weeks_to_complete"],
        "course_end": run["end"],
        "course_key": course["key"],
        "course_list_price": list_price,
        "course_max_effort": run["max_effort"],
        "course_min_effort": run["min_effort"],
        "course_pacing_type": run["pacing_type"].replace("_", "-"),
        "course_primary_program": f"{course['subjects'][0]['name']} Professional Certificate"
        if number % 3 == 0
        else None,
        "course_primary_subject": course["subjects"][0]["name"],
        "course_start": run["start"],
        "course_title": course["title"],
        "courserun_key": run["key"],
        "created": iso(anchor - datetime.timedelta(hours=rng.randint(1, 30))),
        "current_grade": grade,
        "enrollment_date": enrolled.isoformat(),
        "enrollment_id": rng.randint(1_000_000, 99_999_999),
        "enterprise_customer_uuid": customer.uuid,
        "enterprise_enrollment_id": rng.randint(100_000, 9_999_999),
        "enterprise_name": customer.name,
        "enterprise_sso_uid": f"sso|{learner.username}" if customer.sso else None,
        "enterprise_user_id": learner.lms_user_id,
        "has_passed": passed,
        "is_refunded": unenrolled is not None and paid_by == "learner",
        "last_activity_date": activity.isoformat(),
        "letter_grade": words.LETTER_GRADES[number % len(words.LETTER_GRADES)] if passed else None,
        "offer_name": f"{customer.name} learner credit" if paid_by == "enterprise" else None,
        "offer_type": "Enterprise: 100%" if paid_by == "enterprise" else None,
        "paid_by": paid_by,
        "passed_date": (start + datetime.timedelta(days=rng.randint(20, 60))).isoformat() if passed else None,
        "progress_status": status,
        "seat_delivery_method": ("learner_credit", "subscription_license", "coupon_code")[number % 3],
        "unenrollment_date": unenrolled.isoformat() if unenrolled else None,
        "unenrollment_end_within_date": (max(enrolled, start) + datetime.timedelta(days=14)).isoformat(),
        "user_account_creation_date": iso(learner.joined),
        "user_country": learner.country,
        "user_current_enrollment_mode": run["type"],
        "user_email": learner.email,
        "user_username": learner.username,
        **_summary_extras(customer, learner, run, number, passed),
    }


def _summary_extras(
    customer: Customer, learner: Learner, run: dict[str, Any], number: int, passed: bool
) -> dict[str, Any]:
    """The fields edx-enterprise-data's serializers send beyond the reference's list (v1's, then v0's)."""
    first, _, last = learner.username.partition(".")
    return {
        "user_country_code": learner.country,
        "course_duration_weeks": run["weeks_to_complete"],
        "course_start_date": run["start"][:10],
        "course_end_date": run["end"][:10],
        "offer_id": None,
        "primary_program_type": "Professional Certificate" if number % 3 == 0 else None,
        "user_first_name": first.title(),
        "user_last_name": last.title() or None,
        "total_learning_time_hours": round(number % 7 * 1.25, 2),
        "is_subsidy": True,
        "course_product_line": "OCM",
        "budget_id": None,
        "enterprise_flex_group_name": None,
        "enterprise_flex_group_uuid": None,
        "course_progress": 1.0 if passed else round(number % 10 / 10, 1),
        "course_passing_grade": 0.7,
        "id": number + 1,
        "enterprise_id": customer.uuid,
        "enterprise_user": learner.lms_user_id,
        "enterprise_site_id": None,
        "lms_user_id": learner.lms_user_id,
        "course_id": run["key"],
        "consent_granted": number % 9 != 4,
        "enrollment_created_timestamp": None,
        "unenrollment_timestamp": None,
        "passed_timestamp": None,
        "user_account_creation_timestamp": iso(learner.joined),
        "offer": None,
        "course_price": run["seats"][-1]["price"],
        "discount_price": None,
    }
