"""edx-enterprise-data's records in the sandbox's initial world: each customer's learner summary
rows (learner progress report), one per learner and course of its catalogs.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Sequence
from typing import Any

from . import _vocabulary as words
from ._content import CatalogContent
from ._data_size import DataSize
from ._records import (
    CatalogRecord,
    Customer,
    Learner,
    iso,
)
from ._seeded import pick_course, seeded_rng

__all__ = ["summary_rows"]


def summary_rows(
    seed: int,
    customer: Customer,
    learners: Sequence[Learner],
    catalogs: Sequence[CatalogRecord],
    content: CatalogContent,
    size: DataSize,
    anchor: datetime.datetime,
) -> tuple[dict[str, Any], ...]:
    rng = seeded_rng(seed, "summaries", customer.uuid)
    catalog = next(catalog for catalog in catalogs if catalog.customer_uuid == customer.uuid)
    rows = []
    for number in range(size.summary_rows_per_customer):
        index = pick_course(rng, catalog)
        if index is None:
            break
        course = content.item(catalog, index)
        rows.append(_summary_row(rng, customer, learners[number % len(learners)], course, number, anchor))
    return tuple(rows)


def _summary_row(
    rng: random.Random,
    customer: Customer,
    learner: Learner,
    course: dict[str, Any],
    number: int,
    anchor: datetime.datetime,
) -> dict[str, Any]:
    run = course["course_runs"][0]
    start = datetime.date.fromisoformat(run["start"][:10])
    enrolled = start - datetime.timedelta(days=rng.randint(1, 30))
    status = ("In Progress", "Passed", "Failed", "In Progress")[number % 4]
    passed = status == "Passed"
    paid_by = ("enterprise", "learner", "enterprise", "third_party")[number % 4]
    grade = rng.randint(20, 100) / 100 if status != "In Progress" else rng.randint(0, 60) / 100
    if passed:
        grade = max(grade, 0.7)
    list_price = float(run["seats"][-1]["price"])  # a FloatField in edx-enterprise-data: a number
    unenrolled = enrolled + datetime.timedelta(days=rng.randint(3, 10)) if number % 11 == 5 else None
    activity = min(anchor.date(), enrolled + datetime.timedelta(days=rng.randint(1, 60)))
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
