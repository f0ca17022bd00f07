"""The floor of decoding a course: the same attrs classes, built by hand from ``orjson.loads`` output.

This is the least any decoder of these models has to do: read every field, parse timestamps,
turn prices into ``Decimal``, look up enum members (keeping undocumented values as strings), and
build the nested classes. No leniency for other spellings of a type, no unknown-field keeping, no
error paths beyond what Python raises on its own. The SDK decoder does all of that on top, so
its time over this one is the price of being lenient.
"""

from __future__ import annotations

import enum
import sys
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

from enterprise_async.models import (
    Availability,
    ContentType,
    Course,
    CourseRun,
    Entitlement,
    Image,
    LevelType,
    NormalizedContentMetadata,
    Organization,
    PacingType,
    Position,
    ProductSource,
    ProgramType,
    Seat,
    SeatType,
    Staff,
    Subject,
)

__all__ = ["floor_courses"]

E = TypeVar("E", bound=enum.Enum)
Data = dict[str, Any]


def floor_courses(data: list[Data]) -> list[Course]:
    """Every course of ``data`` (what ``orjson.loads`` gave for a list of courses)."""
    return [_course(item) for item in data]


if sys.version_info >= (3, 11):

    def _datetime(value: str | None) -> datetime | None:
        return None if value is None else datetime.fromisoformat(value)

else:

    def _datetime(value: str | None) -> datetime | None:
        """Python 3.10's ``fromisoformat`` reads no trailing ``Z``: its offset is spelled out."""
        if value is None:
            return None
        return datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)


def _decimal(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


_MEMBERS: dict[type[enum.Enum], dict[str, enum.Enum]] = {
    kind: {member.value: member for member in kind}
    for kind in (Availability, ContentType, LevelType, PacingType, ProgramType, SeatType)
}


def _member(kind: type[E], value: str | None) -> E | str | None:
    """The member of a documented value, another spelling of one, or the value as it came."""
    if value is None:
        return None
    member = _MEMBERS[kind].get(value)
    if member is not None:
        return member  # type: ignore[return-value]
    try:
        return kind(value)  # the enum's own lookup of other spellings ("Intermediate")
    except ValueError:
        return value


def _image(data: Data | None) -> Image | None:
    if data is None:
        return None
    return Image(
        src=data.get("src"),
        description=data.get("description"),
        height=data.get("height"),
        width=data.get("width"),
    )


def _entitlement(data: Data) -> Entitlement:
    return Entitlement(
        mode=data.get("mode"),
        price=_decimal(data.get("price")),
        currency=data.get("currency"),
        sku=data.get("sku"),
        expires=_datetime(data.get("expires")),
    )


def _organization(data: Data) -> Organization:
    return Organization(
        uuid=data.get("uuid"),
        key=data.get("key"),
        name=data.get("name"),
        auto_generate_course_run_keys=data.get("auto_generate_course_run_keys"),
        certificate_logo_image_url=data.get("certificate_logo_image_url"),
        logo_image_url=data.get("logo_image_url"),
        organization_hex_color=data.get("organization_hex_color"),
        data_modified_timestamp=_datetime(data.get("data_modified_timestamp")),
        description=data.get("description"),
        description_es=data.get("description_es"),
        homepage_url=data.get("homepage_url"),
        tags=data.get("tags") or [],
        marketing_url=data.get("marketing_url"),
        slug=data.get("slug"),
        banner_image_url=data.get("banner_image_url"),
        enterprise_subscription_inclusion=data.get("enterprise_subscription_inclusion"),
    )


def _subject(data: Data) -> Subject:
    return Subject(
        name=data.get("name"),
        subtitle=data.get("subtitle"),
        description=data.get("description"),
        banner_image_url=data.get("banner_image_url"),
        card_image_url=data.get("card_image_url"),
        slug=data.get("slug"),
        uuid=data.get("uuid"),
    )


def _product_source(data: Data | None) -> ProductSource | None:
    if data is None:
        return None
    return ProductSource(name=data.get("name"), slug=data.get("slug"), description=data.get("description"))


def _seat(data: Data) -> Seat:
    return Seat(
        type=_member(SeatType, data.get("type")),
        price=_decimal(data.get("price")),
        currency=data.get("currency"),
        upgrade_deadline=_datetime(data.get("upgrade_deadline")),
        upgrade_deadline_override=_datetime(data.get("upgrade_deadline_override")),
        credit_provider=data.get("credit_provider"),
        credit_hours=data.get("credit_hours"),
        sku=data.get("sku"),
        bulk_sku=data.get("bulk_sku"),
    )


def _position(data: Data | None) -> Position | None:
    if data is None:
        return None
    return Position(
        title=data.get("title"),
        organization_name=data.get("organization_name"),
        organization_id=data.get("organization_id"),
        organization_override=data.get("organization_override"),
        organization_marketing_url=data.get("organization_marketing_url"),
        organization_uuid=data.get("organization_uuid"),
        organization_logo_image_url=data.get("organization_logo_image_url"),
    )


def _staff(data: Data) -> Staff:
    return Staff(
        uuid=data.get("uuid"),
        salutation=data.get("salutation"),
        given_name=data.get("given_name"),
        family_name=data.get("family_name"),
        bio=data.get("bio"),
        slug=data.get("slug"),
        position=_position(data.get("position")),
        areas_of_expertise=data.get("areas_of_expertise") or [],
        profile_image=data.get("profile_image"),
        works=data.get("works") or [],
        urls=data.get("urls"),
        urls_detailed=data.get("urls_detailed") or [],
        email=data.get("email"),
        profile_image_url=data.get("profile_image_url"),
        major_works=data.get("major_works"),
        published=data.get("published"),
    )


def _course_run(data: Data) -> CourseRun:
    return CourseRun(
        key=data.get("key"),
        uuid=data.get("uuid"),
        title=data.get("title"),
        external_key=data.get("external_key"),
        image=_image(data.get("image")),
        short_description=data.get("short_description"),
        marketing_url=data.get("marketing_url"),
        seats=[_seat(seat) for seat in data.get("seats") or ()],
        start=_datetime(data.get("start")),
        end=_datetime(data.get("end")),
        go_live_date=_datetime(data.get("go_live_date")),
        enrollment_start=_datetime(data.get("enrollment_start")),
        enrollment_end=_datetime(data.get("enrollment_end")),
        weeks_to_complete=data.get("weeks_to_complete"),
        pacing_type=_member(PacingType, data.get("pacing_type")),
        type=_member(SeatType, data.get("type")),
        run_type=data.get("run_type"),
        status=data.get("status"),
        is_enrollable=data.get("is_enrollable"),
        is_marketable=data.get("is_marketable"),
        availability=_member(Availability, data.get("availability")),
        variant_id=data.get("variant_id"),
        course=data.get("course"),
        full_description=data.get("full_description"),
        announcement=_datetime(data.get("announcement")),
        video=data.get("video"),
        content_language=data.get("content_language"),
        license=data.get("license"),
        outcome=data.get("outcome"),
        transcript_languages=data.get("transcript_languages") or [],
        instructors=data.get("instructors") or [],
        staff=[_staff(person) for person in data.get("staff") or ()],
        min_effort=data.get("min_effort"),
        max_effort=data.get("max_effort"),
        modified=_datetime(data.get("modified")),
        level_type=_member(LevelType, data.get("level_type")),
        mobile_available=data.get("mobile_available"),
        hidden=data.get("hidden"),
        reporting_type=data.get("reporting_type"),
        eligible_for_financial_aid=data.get("eligible_for_financial_aid"),
        first_enrollable_paid_seat_price=data.get("first_enrollable_paid_seat_price"),
        has_ofac_restrictions=data.get("has_ofac_restrictions"),
        ofac_comment=data.get("ofac_comment"),
        enrollment_count=data.get("enrollment_count"),
        recent_enrollment_count=data.get("recent_enrollment_count"),
        expected_program_type=data.get("expected_program_type"),
        expected_program_name=data.get("expected_program_name"),
        course_uuid=data.get("course_uuid"),
        estimated_hours=data.get("estimated_hours"),
        content_language_search_facet_name=data.get("content_language_search_facet_name"),
        enterprise_subscription_inclusion=data.get("enterprise_subscription_inclusion"),
        programs=data.get("programs") or [],
        enrollment_url=data.get("enrollment_url"),
        content_last_modified=_datetime(data.get("content_last_modified")),
        parent_content_key=data.get("parent_content_key"),
        xapi_activity_id=data.get("xapi_activity_id"),
        enrollment_mode=data.get("enrollment_mode"),
        first_enrollable_paid_seat_sku=data.get("first_enrollable_paid_seat_sku"),
        aggregation_key=data.get("aggregation_key"),
        authoring_organization_uuids=data.get("authoring_organization_uuids") or [],
        content_type=_member(ContentType, data.get("content_type")),
        has_enrollable_seats=data.get("has_enrollable_seats"),
        image_url=data.get("image_url"),
        language=data.get("language"),
        logo_image_urls=data.get("logo_image_urls") or [],
        number=data.get("number"),
        org=data.get("org"),
        partner=data.get("partner"),
        program_types=[_member(ProgramType, kind) for kind in data.get("program_types") or ()],
        published=data.get("published"),
        seat_types=[_member(SeatType, kind) for kind in data.get("seat_types") or ()],
        staff_uuids=data.get("staff_uuids") or [],
        subject_uuids=data.get("subject_uuids") or [],
    )


def _course(data: Data) -> Course:
    """One course from its JSON object."""
    original_image = data.get("original_image")
    return Course(
        key=data.get("key"),
        uuid=data.get("uuid"),
        title=data.get("title"),
        course_runs=[_course_run(run) for run in data.get("course_runs") or ()],
        enrollment_url=data.get("enrollment_url"),
        entitlements=[_entitlement(entitlement) for entitlement in data.get("entitlements") or ()],
        owners=[_organization(owner) for owner in data.get("owners") or ()],
        image=_image(data.get("image")),
        short_description=data.get("short_description"),
        type=data.get("type"),
        url_slug=data.get("url_slug"),
        course_type=data.get("course_type"),
        enterprise_subscription_inclusion=data.get("enterprise_subscription_inclusion"),
        excluded_from_seo=data.get("excluded_from_seo"),
        excluded_from_search=data.get("excluded_from_search"),
        full_description=data.get("full_description"),
        level_type=_member(LevelType, data.get("level_type")),
        subjects=[_subject(subject) for subject in data.get("subjects") or ()],
        prerequisites=data.get("prerequisites") or [],
        prerequisites_raw=data.get("prerequisites_raw") or [],
        expected_learning_items=data.get("expected_learning_items") or [],
        video=data.get("video"),
        sponsors=data.get("sponsors") or [],
        modified=_datetime(data.get("modified")),
        marketing_url=data.get("marketing_url"),
        syllabus_raw=data.get("syllabus_raw"),
        outcome=data.get("outcome"),
        original_image=_image(original_image) if isinstance(original_image, dict) else original_image,
        card_image_url=data.get("card_image_url"),
        canonical_course_run_key=data.get("canonical_course_run_key"),
        extra_description=data.get("extra_description"),
        additional_information=data.get("additional_information"),
        additional_metadata=data.get("additional_metadata"),
        faq=data.get("faq"),
        learner_testimonials=data.get("learner_testimonials"),
        enrollment_count=data.get("enrollment_count"),
        recent_enrollment_count=data.get("recent_enrollment_count"),
        topics=data.get("topics") or [],
        key_for_reruns=data.get("key_for_reruns"),
        url_slug_history=data.get("url_slug_history") or [],
        url_redirects=data.get("url_redirects") or [],
        course_run_statuses=data.get("course_run_statuses") or [],
        editors=data.get("editors") or [],
        collaborators=data.get("collaborators") or [],
        skill_names=data.get("skill_names") or [],
        skills=data.get("skills") or [],
        organization_short_code_override=data.get("organization_short_code_override"),
        organization_logo_override_url=data.get("organization_logo_override_url"),
        geolocation=data.get("geolocation"),
        location_restriction=data.get("location_restriction"),
        in_year_value=data.get("in_year_value"),
        product_source=_product_source(data.get("product_source")),
        data_modified_timestamp=_datetime(data.get("data_modified_timestamp")),
        watchers=data.get("watchers") or [],
        programs=data.get("programs") or [],
        course_run_keys=data.get("course_run_keys") or [],
        editable=data.get("editable"),
        advertised_course_run_uuid=data.get("advertised_course_run_uuid"),
        content_type=_member(ContentType, data.get("content_type")),
        aggregation_key=data.get("aggregation_key"),
        content_last_modified=_datetime(data.get("content_last_modified")),
        parent_content_key=data.get("parent_content_key"),
        xapi_activity_id=data.get("xapi_activity_id"),
        active=data.get("active"),
        normalized_metadata=_normalized(data.get("normalized_metadata")),
        normalized_metadata_by_run=data.get("normalized_metadata_by_run"),
        reviews_count=data.get("reviews_count"),
        avg_course_rating=data.get("avg_course_rating"),
        first_enrollable_paid_seat_price=data.get("first_enrollable_paid_seat_price"),
        languages=data.get("languages") or [],
        organizations=data.get("organizations") or [],
    )


def _normalized(data: Data | None) -> NormalizedContentMetadata | None:
    if data is None:
        return None
    return NormalizedContentMetadata(
        start_date=_datetime(data.get("start_date")),
        end_date=_datetime(data.get("end_date")),
        enroll_start_date=_datetime(data.get("enroll_start_date")),
        enroll_by_date=_datetime(data.get("enroll_by_date")),
        content_price=data.get("content_price"),
    )
