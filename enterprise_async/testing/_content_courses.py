"""Courses and course runs of the sandbox's catalogs, generated from an item's seeded generator:
a course with its two runs (and what enterprise-catalog adds when it serves a course), or a
standalone run.

The reference's quirks are on the wire on purpose: capitalised ``level_type`` on courses and on
some runs, ``self_paced`` spellings on some runs, ``original_image`` as a URL on some courses and
an image object on others.
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from . import _vocabulary as words
from ._content_draws import (
    ENTERPRISE_SITE,
    MEDIA,
    PRICES,
    SITE,
    below,
    between,
    draw_uuid,
    numbered_slug,
    pick,
    slug_of,
    stamp,
)
from ._content_pools import ContentPools

__all__ = ["CourseGenerator"]


class CourseGenerator:
    """Course ``index`` of catalog ``ordinal``, or a standalone run, from the item's generator."""

    def __init__(self, pools: ContentPools) -> None:
        self._pools = pools
        self._anchor = pools.anchor
        self._organizations = pools.organizations
        self._subjects = pools.subjects
        self._staff = pools.staff

    def _identity(self, rng: random.Random, ordinal: int, index: int) -> dict[str, Any]:
        """What a course and its runs share: organization, subject, title, key."""
        organization = pick(rng, self._organizations)
        subject_index = below(rng, len(self._subjects))
        subject_name, code = words.SUBJECTS[subject_index]
        topic = pick(rng, words.TOPICS)
        noun = pick(rng, words.COURSE_NOUNS)
        return {
            "organization": organization,
            "subject": self._subjects[subject_index],
            "subject_name": subject_name,
            "topic": topic,
            "title": f"{topic}: {noun}",
            "key": f"{organization['key']}+{code}.{ordinal}.{index}x",
        }

    def course(self, rng: random.Random, ordinal: int, index: int) -> dict[str, Any]:
        """A course of the nested shape, with its two runs (the first current, the next upcoming)."""
        ident = self._identity(rng, ordinal, index)
        key, title, topic = ident["key"], ident["title"], ident["topic"]
        course_uuid = draw_uuid(rng)
        slug = numbered_slug(title, index)
        runs = [self._run(rng, ident, course_uuid, term, start_days) for term, start_days in self._terms(rng)]
        image = self._pools.image(rng, "course", course_uuid)
        price = runs[0]["seats"][-1]["price"]
        modified = self._anchor - datetime.timedelta(days=between(rng, 1, 300), minutes=between(rng, 0, 1439))
        modified_stamp = stamp(modified)
        level = pick(rng, ("Introductory", "Intermediate", "Advanced"))
        organization = ident["organization"]
        return {
            "key": key,
            "uuid": course_uuid,
            "title": title,
            "course_runs": runs,
            "enrollment_url": f"{ENTERPRISE_SITE}/course/{key}/enroll/",
            "entitlements": [
                {
                    "mode": "verified",
                    "price": price,
                    "currency": "USD",
                    "sku": f"{rng.getrandbits(28):07X}",
                    "expires": None,
                }
            ],
            "owners": [organization],
            "image": image,
            "short_description": f"<p>Learn the {ident['topic'].lower()} skills employers ask for.</p>",
            "type": draw_uuid(rng),
            "url_slug": slug,
            "course_type": pick(rng, ("verified-audit", "professional", "executive-education-2u")),
            "enterprise_subscription_inclusion": rng.random() < 0.8,
            "excluded_from_seo": False,
            "excluded_from_search": rng.random() < 0.05,
            "full_description": f"<p>{title} covers {topic.lower()} from first principles to practice.</p>",
            "level_type": level,
            "subjects": [ident["subject"]],
            "prerequisites": [{"name": "High school mathematics"}],
            "prerequisites_raw": ["High school mathematics", "Basic computer literacy"],
            "expected_learning_items": [f"Apply {topic.lower()} to real problems", "Work with real data"],
            "video": {"src": f"{MEDIA}/video/{course_uuid}.mp4", "description": f"About {title}"},
            "sponsors": [organization["name"]],
            "modified": modified_stamp,
            "marketing_url": f"{SITE}/course/{slug}",
            "syllabus_raw": "Week 1: Introduction. Week 2: Methods. Week 3: Practice.",
            "outcome": f"<ul><li>Understand {topic.lower()}</li></ul>",
            "original_image": image if index % 2 else image["src"],
            "card_image_url": image["src"],
            "canonical_course_run_key": runs[0]["key"],
            "extra_description": f"Part of the {ident['subject_name']} collection.",
            "additional_information": "<p>Closed captions are available in English.</p>",
            "additional_metadata": {
                "external_identifier": f"EXT-{index:06d}",
                "lead_capture_form_url": f"{SITE}/lead",
            },
            "faq": "<p><strong>Is there a certificate?</strong> Yes, on the verified track.</p>",
            "learner_testimonials": "<blockquote>Exactly what my team needed.</blockquote>",
            "enrollment_count": between(rng, 500, 250_000),
            "recent_enrollment_count": between(rng, 10, 5000),
            "topics": [{"name": topic, "slug": slug_of(topic)}],
            "key_for_reruns": key,
            "url_slug_history": [slug],
            "url_redirects": [f"/course/{slug}-old"],
            "course_run_statuses": ["published"],
            "editors": [{"user": f"editor{index % 7}@{organization['key'].lower()}.example.org"}],
            "collaborators": [{"name": organization["name"], "uuid": organization["uuid"]}],
            "skill_names": [topic, ident["subject_name"]],
            "skills": [{"name": topic, "description": f"Working knowledge of {topic.lower()}."}],
            "organization_short_code_override": organization["key"],
            "organization_logo_override_url": organization["logo_image_url"],
            "geolocation": self._pools.geolocation(rng),
            "location_restriction": {"restriction_type": "blocklist", "countries": ["KP", "IR"]},
            "in_year_value": {"per_click_usa": "2", "per_click_international": "1"},
            "product_source": {"name": "edX", "slug": "edx", "description": "Open edX partner content"},
            "data_modified_timestamp": modified_stamp,
            "watchers": [f"watcher{index % 5}@learning.example.org"],
            "programs": [],
            "course_run_keys": [run["key"] for run in runs],
            "editable": False,
            "advertised_course_run_uuid": runs[0]["uuid"],
            **self._served_course(key, runs),
        }

    def head(self, rng: random.Random, ordinal: int, index: int) -> tuple[str, str, int]:
        """Course ``index``'s key, title and price in cents (its first run's paid seat), drawn as
        ``course`` draws them, without making the rest of it."""
        ident = self._identity(rng, ordinal, index)
        draw_uuid(rng)  # the course's uuid
        self._terms(rng)
        price = self._run_head(rng)[2]
        return ident["key"], ident["title"], round(float(price) * 100)

    def _terms(self, rng: random.Random) -> tuple[tuple[str, int], tuple[str, int]]:
        """A course's two runs: the term of each and the days from the anchor to its start (the
        first current, the next upcoming)."""
        year = self._anchor.year
        first, first_start = 1 + below(rng, 3), -between(rng, 7, 60)
        second, second_start = 1 + below(rng, 3), between(rng, 30, 120)
        return (f"{first}T{year}", first_start), (f"{second}T{year + 1}", second_start)

    def _run_head(self, rng: random.Random) -> tuple[str, int, str]:
        """The first draws of a run: its uuid, its length in weeks and its paid seat's price."""
        return draw_uuid(rng), between(rng, 4, 12), pick(rng, PRICES)

    def _served_course(self, key: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
        """What enterprise-catalog adds to a course when it serves it: its type, the last change,
        the normalized dates and price of the advertised run and of each run."""
        by_run = {run["key"]: self._normalized(run) for run in runs}
        return {
            "content_type": "course",
            "aggregation_key": f"course:{key}",
            "content_last_modified": self._pools.day(0),  # the course's last change is before the anchor
            "parent_content_key": None,
            "xapi_activity_id": f"{ENTERPRISE_SITE}/xapi/activities/course/{key}",
            "active": any(run["is_enrollable"] for run in runs),
            "normalized_metadata": by_run[runs[0]["key"]],
            # Keyed by run key, which DRF's XML renderer writes as element names that are not XML
            # names: sent as null until the XML reader reads such names back (issue 20, point 5).
            "normalized_metadata_by_run": None,
            "reviews_count": None,
            "avg_course_rating": None,
            "first_enrollable_paid_seat_price": runs[0]["first_enrollable_paid_seat_price"],
            "languages": [runs[0]["content_language_search_facet_name"]],
            "organizations": [f"{key.partition('+')[0]}: {key.partition('+')[0]}"],
        }

    @staticmethod
    def _normalized(run: dict[str, Any]) -> dict[str, Any]:
        return {
            "start_date": run["start"],
            "end_date": run["end"],
            "enroll_start_date": run["enrollment_start"],
            "enroll_by_date": run["enrollment_end"],
            "content_price": float(run["first_enrollable_paid_seat_price"]),
        }

    def standalone_run(self, rng: random.Random, ordinal: int, index: int) -> dict[str, Any]:
        """A course run listed on its own among a catalog's items."""
        ident = self._identity(rng, ordinal, index)
        course_uuid = draw_uuid(rng)
        term = f"{1 + below(rng, 3)}T{self._anchor.year}"
        return self._run(rng, ident, course_uuid, term, between(rng, -45, 90))

    def _run(
        self, rng: random.Random, ident: dict[str, Any], course_uuid: str, term: str, start_days: int
    ) -> dict[str, Any]:
        course_key = ident["key"]
        key = f"course-v1:{course_key}+{term}"
        run_uuid, weeks, price = self._run_head(rng)
        day = self._pools.day
        end_days = start_days + 7 * weeks  # a run starts and ends at 14:00
        track = pick(rng, ("verified", "professional"))
        pacing = pick(rng, ("self-paced", "instructor-paced", "self_paced", "instructor_paced"))
        level = pick(rng, ("introductory", "intermediate", "advanced", "Intermediate", "high_school"))
        language, language_name = pick(rng, words.LANGUAGES)
        staff = [pick(rng, self._staff) for _ in range(2)]
        min_effort = between(rng, 2, 5)
        return {
            "key": key,
            "uuid": run_uuid,
            "title": ident["title"],
            "external_key": f"EXT-{term}-{below(rng, 10_000):04d}",
            "image": self._pools.image(rng, "run", run_uuid),
            "short_description": f"<p>{ident['title']}, {term} session.</p>",
            "marketing_url": f"{SITE}/course/{slug_of(ident['title'])}?run={term}",
            "seats": self._seats(rng, track, price, start_days),
            "start": day(start_days, 14),
            "end": day(end_days, 14),
            "go_live_date": day(start_days - 30, 14),
            "enrollment_start": day(start_days - 60, 14),
            "enrollment_end": day(end_days - 7, 14),
            "weeks_to_complete": weeks,
            "pacing_type": pacing,
            "type": track,
            "run_type": draw_uuid(rng),
            "status": "published",
            "is_enrollable": True,
            "is_marketable": True,
            "availability": "Current" if start_days <= 0 else "Upcoming",
            "variant_id": draw_uuid(rng),
            "course": course_key,
            "full_description": f"{ident['title']} in the {ident['subject_name']} curriculum.",
            "announcement": day(start_days - 45, 14),
            "video": {"src": f"{MEDIA}/video/{run_uuid}.mp4", "description": "Course trailer"},
            "content_language": language,
            "license": "all-rights-reserved",
            "outcome": f"<p>Confidence with {ident['topic'].lower()}.</p>",
            "transcript_languages": ["en-us", language] if language != "en-us" else ["en-us"],
            "instructors": [person["given_name"] + " " + person["family_name"] for person in staff],
            "staff": staff,
            "min_effort": min_effort,
            "max_effort": min_effort + between(rng, 1, 6),
            "modified": day(-between(rng, 1, 90)),
            "level_type": level,
            "mobile_available": True,
            "hidden": False,
            "reporting_type": "mooc",
            "eligible_for_financial_aid": rng.random() < 0.7,
            "first_enrollable_paid_seat_price": int(float(price)),
            "has_ofac_restrictions": False,
            "ofac_comment": "No restrictions",
            "enrollment_count": between(rng, 100, 90_000),
            "recent_enrollment_count": between(rng, 5, 3000),
            "expected_program_type": {"name": "Professional Certificate", "slug": "professional-certificate"},
            "expected_program_name": f"{ident['subject_name']} Professional Certificate",
            "course_uuid": course_uuid,
            "estimated_hours": float(weeks * min_effort) + 0.5,
            "content_language_search_facet_name": language_name,
            "enterprise_subscription_inclusion": True,
            "programs": [],
            "enrollment_url": f"{ENTERPRISE_SITE}/course/{course_key}/enroll/?course_run_key={key}",
            "content_last_modified": day(0),
            "parent_content_key": course_key,
            "xapi_activity_id": f"{ENTERPRISE_SITE}/xapi/activities/courserun/{key}",
        }

    def _seats(self, rng: random.Random, track: str, price: str, start_days: int) -> list[dict[str, Any]]:
        deadline = start_days + between(rng, 14, 40)
        audit = {
            "type": "audit",
            "price": "0.00",
            "currency": "USD",
            "upgrade_deadline": None,
            "upgrade_deadline_override": None,
            "credit_provider": None,
            "credit_hours": None,
            "sku": f"{rng.getrandbits(28):07X}",
            "bulk_sku": None,
        }
        paid = {
            "type": track,
            "price": price,
            "currency": "USD",
            "upgrade_deadline": self._pools.day(deadline, 14),
            "upgrade_deadline_override": self._pools.day(deadline + 7, 14) if rng.random() < 0.2 else None,
            "credit_provider": "asu" if rng.random() < 0.1 else None,
            "credit_hours": 3 if rng.random() < 0.1 else None,
            "sku": f"{rng.getrandbits(28):07X}",
            "bulk_sku": f"{rng.getrandbits(28):07X}",
        }
        return [audit, paid]
