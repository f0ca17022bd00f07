"""Programs of the sandbox's catalogs, generated from an item's seeded generator, and the uuid
that says where a program is: its last group encodes the catalog and the index, masked per seed,
so a program is found again from its uuid alone (``place``).

Program types outside the reference's documented enum are on the wire on purpose.
"""

from __future__ import annotations

import hashlib
import random
import uuid
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
    uuid_text,
)
from ._content_pools import ContentPools

__all__ = ["ProgramGenerator"]

_NODE_BITS = 48
_INDEX_BITS = 28


class ProgramGenerator:
    """Program ``index`` of catalog ``ordinal``, from the item's generator."""

    def __init__(self, pools: ContentPools, seed: int) -> None:
        self._pools = pools
        self._anchor = pools.anchor
        self._organizations = pools.organizations
        self._subjects = pools.subjects
        self._staff = pools.staff
        self._program_mask = int.from_bytes(hashlib.sha256(f"{seed}:programs".encode()).digest()[:6], "big")

    def place(self, program_uuid: str) -> tuple[int, int] | None:
        """The catalog ordinal and the index a program uuid encodes (None for no uuid)."""
        try:
            node = uuid.UUID(program_uuid).int & ((1 << _NODE_BITS) - 1)
        except ValueError:
            return None
        decoded = node ^ self._program_mask
        return decoded >> _INDEX_BITS, decoded & ((1 << _INDEX_BITS) - 1)

    def program(self, rng: random.Random, ordinal: int, index: int) -> dict[str, Any]:
        """A program of the nested shape, its uuid encoding where it is."""
        program_uuid = self._program_uuid(rng, ordinal, index)
        subject_index = below(rng, len(self._subjects))
        subject_name, _code = words.SUBJECTS[subject_index]
        program_type = pick(rng, words.PROGRAM_TYPES)
        title = f"{pick(rng, words.TOPICS)} {program_type}"
        slug = numbered_slug(title, index)
        authors = [pick(rng, self._organizations)]
        staff = [pick(rng, self._staff) for _ in range(2)]
        courses = [self._program_course(rng, ordinal, index, position) for position in range(3)]
        weeks = between(rng, 12, 40)
        modified = self._pools.day(-between(rng, 1, 200))
        language = pick(rng, words.LANGUAGES)[1]
        min_price = 3 * int(float(pick(rng, PRICES)))
        return {
            "uuid": program_uuid,
            "title": title,
            "subtitle": f"Master {subject_name.lower()} in {weeks} weeks",
            "type": program_type,
            "type_attrs": {
                "uuid": draw_uuid(rng),
                "slug": slug_of(program_type),
                "coaching_supported": program_type == "Masters",
            },
            "status": "active",
            "marketing_slug": slug,
            "marketing_url": f"{SITE}/{slug_of(program_type)}/{slug}",
            "banner_image": {
                "large": {
                    "url": f"{MEDIA}/programs/{program_uuid}/large.jpg",
                    "width": "1440",
                    "height": "480",
                },
                "small": {
                    "url": f"{MEDIA}/programs/{program_uuid}/small.jpg",
                    "width": "435",
                    "height": "145",
                },
            },
            "hidden": False,
            "courses": courses,
            "authoring_organizations": authors,
            "card_image_url": f"{MEDIA}/programs/{program_uuid}/card.jpg",
            "is_program_eligible_for_one_click_purchase": rng.random() < 0.6,
            # Every program carries a degree object: the spec's Degree is not nullable.
            "degree": self._degree(program_uuid, title),
            "curricula": [
                {
                    "uuid": draw_uuid(rng),
                    "name": f"{title} curriculum",
                    "marketing_text": "<p>Three courses, one capstone.</p>",
                    "marketing_text_brief": "Three courses, one capstone.",
                    "is_active": True,
                    "courses": courses,
                    "programs": [{"uuid": program_uuid, "title": title}],
                }
            ],
            "marketing_hook": f"Advance your career in {subject_name.lower()}.",
            "total_hours_of_effort": weeks * 6,
            "recent_enrollment_count": between(rng, 10, 4000),
            "organization_short_code_override": authors[0]["key"],
            "organization_logo_override_url": authors[0]["logo_image_url"],
            "primary_subject_override": {"name": subject_name, "slug": slug_of(subject_name)},
            "level_type_override": {"name": "Intermediate", "sort_value": 2},
            "language_override": language,
            "labels": [subject_name, program_type],
            "taxi_form": {"form_id": f"form-{index}", "post_submit_url": f"{SITE}/thanks"},
            "program_duration_override": weeks,
            "data_modified_timestamp": modified,
            "excluded_from_search": False,
            "excluded_from_seo": False,
            "has_ofac_restrictions": False,
            "ofac_comment": "No restrictions",
            "overview": f"<p>{title}: a structured path through {subject_name.lower()}.</p>",
            "weeks_to_complete": weeks,
            "weeks_to_complete_max": weeks + 4,
            "weeks_to_complete_min": weeks - 4,
            "min_hours_effort_per_week": 4,
            "max_hours_effort_per_week": 8,
            "video": {"src": f"{MEDIA}/video/{program_uuid}.mp4", "description": "Program overview"},
            "expected_learning_items": ["Build a portfolio project", "Earn a shareable certificate"],
            "faq": ["How long does it take?", "Is financial aid available?"],
            "credit_backing_organizations": [
                {
                    "uuid": org["uuid"],
                    "key": org["key"],
                    "name": org["name"],
                    "logo_image_url": org["logo_image_url"],
                }
                for org in authors
            ],
            "corporate_endorsements": [
                {"corporation_name": "Globex", "statement": "A must for our analysts."}
            ],
            "job_outlook_items": [{"value": f"Demand for {subject_name.lower()} skills is growing."}],
            "individual_endorsements": [{"endorser": staff[0], "quote": "Rigorous and practical."}],
            "languages": ["en-us"],
            "transcript_languages": ["en-us", "es"],
            "subjects": [self._subjects[subject_index]],
            "price_ranges": [min_price, min_price * 2],
            "staff": staff,
            "credit_redemption_overview": {"summary": "Credit may be redeemed at partner universities."},
            "applicable_seat_types": ["verified", "professional"],
            "instructor_ordering": [{"uuid": person["uuid"]} for person in staff],
            "enrollment_count": between(rng, 500, 60_000),
            "topics": [{"name": subject_name, "slug": slug_of(subject_name)}],
            "credit_value": between(rng, 0, 12),
            "enterprise_subscription_inclusion": rng.random() < 0.7,
            "geolocation": self._pools.geolocation(rng),
            "location_restriction": {"restriction_type": "allowlist", "countries": ["US", "CA", "GB"]},
            "is_2u_degree_program": program_type == "Masters",
            "in_year_value": {"per_lead_usa": "20", "per_lead_international": "8"},
            "skill_names": [subject_name],
            "skills": [{"name": subject_name, "description": f"Professional {subject_name.lower()}."}],
            "product_source": {"name": "edX", "slug": "edx", "description": "Open edX partner content"},
            "subscription_eligible": rng.random() < 0.5,
            "subscription_prices": [pick(rng, (39, 49, 79))],
            "enrollment_url": f"{ENTERPRISE_SITE}/program/{program_uuid}/enroll/",
            "content_last_modified": self._pools.day(0),
            "parent_content_key": None,
        }

    def _program_uuid(self, rng: random.Random, ordinal: int, index: int) -> str:
        high = rng.getrandbits(128 - _NODE_BITS) << _NODE_BITS
        node = ((ordinal << _INDEX_BITS) | index) ^ self._program_mask
        return uuid_text(high | node)

    def _program_course(self, rng: random.Random, ordinal: int, index: int, position: int) -> dict[str, Any]:
        organization = pick(rng, self._organizations)
        topic = pick(rng, words.TOPICS)
        key = f"{organization['key']}+PRG.{ordinal}.{index}.{position}x"
        return {
            "key": key,
            "uuid": draw_uuid(rng),
            "title": f"{topic} {('I', 'II', 'III')[position]}",
            "course_runs": [{"key": f"course-v1:{key}+1T{self._anchor.year}", "pacing_type": "self_paced"}],
        }

    def _degree(self, program_uuid: str, title: str) -> dict[str, Any]:
        return {
            "application_requirements": "<p>Bachelor's degree and two letters of recommendation.</p>",
            "apply_url": f"{SITE}/apply/{program_uuid}",
            "banner_border_color": "#0A3055",
            "campus_image": f"{MEDIA}/degrees/{program_uuid}/campus.jpg",
            "title_background_image": f"{MEDIA}/degrees/{program_uuid}/title.jpg",
            "costs": [{"description": "Tuition", "amount": "$24,000"}],
            "deadlines": [
                {"semester": "Fall", "name": "Application", "date": "August 1", "time": "23:59 ET"}
            ],
            "lead_capture_list_name": "Master_Degree_Leads",
            "quick_facts": [{"text": "Fully online"}, {"text": "Part-time friendly"}],
            "overall_ranking": "Top 20 online programs",
            "prerequisite_coursework": "<p>Statistics and programming.</p>",
            "rankings": [
                {"rank": "#5", "description": "Online master's programs", "source": "Example Rankings"}
            ],
            "lead_capture_image": f"{MEDIA}/degrees/{program_uuid}/lead.jpg",
            "micromasters_path": "<p>Start with the MicroMasters program.</p>",
            "micromasters_url": f"{SITE}/micromasters/{slug_of(title)}",
            "micromasters_long_title": f"{title} MicroMasters",
            "micromasters_long_description": "<p>Earn credit toward the degree.</p>",
            "micromasters_background_image": f"{MEDIA}/degrees/{program_uuid}/mm.jpg",
            "micromasters_org_name_override": "Example University",
            "costs_fine_print": "<p>Fees may change.</p>",
            "deadlines_fine_print": "<p>Deadlines are in Eastern Time.</p>",
            "hubspot_lead_capture_form_id": f"hs-{program_uuid[:8]}",
            "additional_metadata": {
                "external_identifier": f"DEG-{program_uuid[:8]}",
                "external_url": f"https://degrees.example.org/{program_uuid}",
                "organic_url": f"{SITE}/masters/{slug_of(title)}",
            },
            "specializations": ["Analytics", "Systems"],
            "program_duration_override": "18 to 24 months",
            "display_on_org_page": True,
            "excluded_from_search": False,
            "excluded_from_seo": False,
        }
