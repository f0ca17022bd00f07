"""Catalog contents, generated on demand: item ``i`` of catalog ``c`` is a pure function of
(seed, c, i), so a catalog of 100,000 items costs no memory and reads the same every time.

Items cycle through kinds by index (``KIND_CYCLE``): mostly courses (with nested course runs),
some standalone course runs, some programs. Keys carry the catalog and the index
(``MITx+CS.3.42x``, ``course-v1:MITx+CS.3.42x+1T2026``, a program uuid whose last group encodes
them), which is how a single course, run or program is found again without an index, and how an
item of another catalog is told apart (404).

The reference's quirks are on the wire on purpose: capitalised ``level_type`` on courses and on
some runs, ``self_paced`` spellings on some runs, ``original_image`` as a URL on some courses and
an image object on others, program types outside the documented enum.
"""

from __future__ import annotations

import datetime
import hashlib
import random
import re
import uuid
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Final, Literal, TypeVar

from . import _vocabulary as words
from ._records import CatalogRecord

__all__ = ["KIND_CYCLE", "CatalogContent", "ContentKind"]

ContentKind = Literal["course", "courserun", "program"]
T = TypeVar("T")

KIND_CYCLE: Final[tuple[ContentKind, ...]] = (
    "course",
    "course",
    "course",
    "course",
    "course",
    "course",
    "course",
    "courserun",
    "courserun",
    "program",
)
"""Kind of item ``i`` is ``KIND_CYCLE[i % 10]``: 70% courses, 20% course runs, 10% programs."""

SITE = "https://learning.example.org"
ENTERPRISE_SITE = "https://enterprise.learning.example.org"
MEDIA = "https://media.learning.example.org"

_COURSE_KEY = re.compile(r"^[^+/]+\+[A-Z]+\.(\d+)\.(\d+)x$")
_RUN_KEY = re.compile(r"^course-v1:[^+/]+\+[A-Z]+\.(\d+)\.(\d+)x\+[0-9A-Za-z_]+$")
_PRICES: Final = ("49.00", "99.00", "149.00", "199.00", "299.00", "1495.00")
_ITEM_CACHE_SIZE = 1024
"""Items kept after generation (about 15 KiB each): enough for a page and the lookups that follow it."""
_NODE_BITS = 48
_INDEX_BITS = 28


def _rng(*parts: object) -> random.Random:
    return random.Random(":".join(map(str, parts)))


_VERSION_CLEAR = ~((0xF << 76) | (0x3 << 62))
_VERSION_4 = (0x4 << 76) | (0x2 << 62)


def _uuid(rng: random.Random) -> str:
    """A version 4 uuid from ``rng`` (as ``uuid.UUID(int=..., version=4)``, without its cost)."""
    text = f"{(rng.getrandbits(128) & _VERSION_CLEAR) | _VERSION_4:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _stamp(moment: datetime.datetime) -> str:
    """A naive UTC datetime as the servers write it (``2026-01-15T14:00:00Z``)."""
    return moment.isoformat(timespec="seconds") + "Z"


def _pick(rng: random.Random, choices: Sequence[T]) -> T:
    """One of ``choices`` (``rng.choice`` without its cost: this runs for every generated item)."""
    return choices[int(rng.random() * len(choices))]


def _below(rng: random.Random, count: int) -> int:
    return int(rng.random() * count)


def _between(rng: random.Random, low: int, high: int) -> int:
    """An integer from ``low`` to ``high`` inclusive (``rng.randint`` without its cost)."""
    return low + int(rng.random() * (high - low + 1))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


class CatalogContent:
    """The contents of every catalog of one sandbox, generated lazily and deterministically."""

    def __init__(self, seed: int, anchor: datetime.datetime) -> None:
        self._seed = seed
        # Naive UTC: every date below is formatted by ``_stamp``, the hot path of item generation.
        self._anchor = anchor.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        pools = _rng(seed, "pools")
        self._organizations = [self._organization(pools, index) for index in range(len(words.ORGANIZATIONS))]
        self._subjects = [self._subject(pools, name, code) for name, code in words.SUBJECTS]
        self._staff = [self._person(pools, index) for index in range(24)]
        self._program_mask = int.from_bytes(hashlib.sha256(f"{seed}:programs".encode()).digest()[:6], "big")
        self._item = lru_cache(maxsize=_ITEM_CACHE_SIZE)(self._generate)

    # ------------------------------------------------------------------ lookups

    def item(self, catalog: CatalogRecord, index: int) -> dict[str, Any]:
        """Item ``index`` of the catalog, as the nested shape sends it. Do not mutate it: it is cached."""
        return self._item(catalog.ordinal, index)

    def kind(self, index: int) -> ContentKind:
        """The kind of item ``index`` of any catalog."""
        return KIND_CYCLE[index % len(KIND_CYCLE)]

    def course(self, catalog: CatalogRecord, key: str) -> dict[str, Any] | None:
        """The course of this catalog whose key is ``key``, if any."""
        index = _index_in(_COURSE_KEY, key, catalog)
        if index is None or self.kind(index) != "course":
            return None
        item = self.item(catalog, index)
        return item if item["key"] == key else None

    def course_run(self, catalog: CatalogRecord, key: str) -> dict[str, Any] | None:
        """The course run of this catalog (standalone, or nested in a course) whose key is ``key``."""
        index = _index_in(_RUN_KEY, key, catalog)
        if index is None or index >= catalog.item_count:
            return None
        item = self.item(catalog, index)
        kind = self.kind(index)
        if kind == "courserun":
            return item if item["key"] == key else None
        if kind == "course":
            return next((run for run in item["course_runs"] if run["key"] == key), None)
        return None

    def holds(self, catalog: CatalogRecord, content_key: str) -> bool:
        """Whether the catalog holds content with this key: a course, a course run or a program."""
        finders = (self.course, self.course_run, self.program)
        return any(find(catalog, content_key) is not None for find in finders)

    def program(self, catalog: CatalogRecord, program_uuid: str) -> dict[str, Any] | None:
        """The program of this catalog whose uuid is ``program_uuid``, if any."""
        try:
            node = uuid.UUID(program_uuid).int & ((1 << _NODE_BITS) - 1)
        except ValueError:
            return None
        decoded = node ^ self._program_mask
        ordinal, index = decoded >> _INDEX_BITS, decoded & ((1 << _INDEX_BITS) - 1)
        if ordinal != catalog.ordinal or index >= catalog.item_count or self.kind(index) != "program":
            return None
        item = self.item(catalog, index)
        return item if item["uuid"] == program_uuid.lower() else None

    def course_of_run(self, catalog: CatalogRecord, key: str) -> dict[str, Any] | None:
        """The course of this catalog holding the course run ``key``: what enterprise-catalog's
        lookup by key answers for a run key (``get_matching_content`` matches parents too)."""
        index = _index_in(_RUN_KEY, key, catalog)
        if index is None or self.kind(index) != "course":
            return None
        item = self.item(catalog, index)
        return item if any(run["key"] == key for run in item["course_runs"]) else None

    def served(self, catalog: CatalogRecord, index: int) -> dict[str, Any]:
        """Item ``index`` as enterprise-catalog's ContentMetadataSerializer writes it: the flat
        shape, and, in place of two programs out of three, a learner pathway or a video (whose
        record names no ``content_type``, as its factory's does)."""
        kind = self.kind(index)
        item = self.item(catalog, index)
        if kind != "program" or (index // len(KIND_CYCLE)) % 3 == 0:
            return self.flat(item, kind)
        if (index // len(KIND_CYCLE)) % 3 == 1:
            return self._pathway(item, catalog, index)
        return self._video(item, catalog, index)

    def _pathway(self, program: dict[str, Any], catalog: CatalogRecord, index: int) -> dict[str, Any]:
        key = f"pathway+{catalog.ordinal}.{index}"
        courses = [{"key": course["key"], "title": course["title"]} for course in program["courses"]]
        return {
            "key": key,
            "aggregation_key": f"learnerpathway:{key}",
            "uuid": program["uuid"],
            "title": program["title"],
            "normalized_metadata": {"enroll_by_date": _stamp(self._anchor + datetime.timedelta(days=60))},
            "content_type": "learnerpathway",
            "name": program["title"],
            "status": "active",
            "overview": program["subtitle"],
            "published": True,
            "visible_via_association": True,
            "created": _stamp(self._anchor - datetime.timedelta(days=90)),
            "card_image": {"card": {"url": program["card_image_url"], "width": 378, "height": 225}},
            "steps": [{"uuid": program["type_attrs"]["uuid"], "min_requirement": 1, "courses": courses}],
            "parent_content_key": None,
            "content_last_modified": program["data_modified_timestamp"],
        }

    def _video(self, program: dict[str, Any], catalog: CatalogRecord, index: int) -> dict[str, Any]:
        key = f"video+{catalog.ordinal}.{index}"
        return {
            "key": key,
            "aggregation_key": f"video:{key}",
            "uuid": program["uuid"],
            "title": f"Welcome to {program['title']}",
            "normalized_metadata": {"enroll_by_date": _stamp(self._anchor + datetime.timedelta(days=60))},
            "parent_content_key": program["courses"][0]["key"],
            "content_last_modified": program["data_modified_timestamp"],
        }

    def title_of(self, catalog: CatalogRecord, content_key: str) -> str | None:
        """The title of a course or course run of the catalog, for assignments of that content."""
        found = self.course(catalog, content_key) or self.course_run(catalog, content_key)
        return str(found["title"]) if found else None

    def price_cents(self, catalog: CatalogRecord, content_key: str) -> int | None:
        """The price, in USD cents, of a course (its first run's) or course run of the catalog;
        None for content the catalog does not hold."""
        run = self.course_run(catalog, content_key)
        if run is None:
            course = self.course(catalog, content_key)
            run = course["course_runs"][0] if course and course.get("course_runs") else None
        price = run.get("first_enrollable_paid_seat_price") if run else None
        return None if price is None else round(float(price) * 100)

    def flat(self, item: dict[str, Any], kind: ContentKind) -> dict[str, Any]:
        """An item in the alternative (flat) shape: the nested fields plus the search-index ones."""
        if kind == "program":
            organizations = item["authoring_organizations"]
            return {
                **item,
                "aggregation_key": f"program:{item['uuid']}",
                "authoring_organization_uuids": [org["uuid"] for org in organizations],
                "content_type": "program",
                "language": item["language_override"],
                "partner": "edx",
                "published": True,
                "staff_uuids": [person["uuid"] for person in item["staff"]],
                "subject_uuids": [subject["uuid"] for subject in item["subjects"]],
            }
        if kind == "course":
            return {**item, "content_type": "course", "aggregation_key": f"course:{item['key']}"}
        organization_key, _, number = item["course"].partition("+")
        organization = next(org for org in self._organizations if org["key"] == organization_key)
        return {
            **item,
            "aggregation_key": f"courserun:{item['course']}",
            "authoring_organization_uuids": [organization["uuid"]],
            "content_type": "courserun",
            "enrollment_mode": item["seats"][-1]["type"],
            "first_enrollable_paid_seat_sku": item["seats"][-1]["sku"],
            "has_enrollable_seats": True,
            "image_url": item["image"]["src"],
            "language": item["content_language"],
            "logo_image_urls": [organization["logo_image_url"]],
            "number": number,
            "org": organization_key,
            "partner": "edx",
            "program_types": [item["expected_program_type"]["name"]],
            "published": True,
            "seat_types": [seat["type"] for seat in item["seats"]],
            "staff_uuids": [person["uuid"] for person in item["staff"]],
            "subject_uuids": [],
        }

    # ------------------------------------------------------------------ generation

    def _generate(self, ordinal: int, index: int) -> dict[str, Any]:
        rng = _rng(self._seed, "item", ordinal, index)
        kind = self.kind(index)
        if kind == "course":
            return self._course(rng, ordinal, index)
        if kind == "courserun":
            return self._standalone_run(rng, ordinal, index)
        return self._program(rng, ordinal, index)

    def _identity(self, rng: random.Random, ordinal: int, index: int) -> dict[str, Any]:
        """What a course and its runs share: organization, subject, title, key."""
        organization = _pick(rng, self._organizations)
        subject_index = _below(rng, len(self._subjects))
        subject_name, code = words.SUBJECTS[subject_index]
        topic = _pick(rng, words.TOPICS)
        noun = _pick(rng, words.COURSE_NOUNS)
        return {
            "organization": organization,
            "subject": self._subjects[subject_index],
            "subject_name": subject_name,
            "topic": topic,
            "title": f"{topic}: {noun}",
            "key": f"{organization['key']}+{code}.{ordinal}.{index}x",
        }

    def _course(self, rng: random.Random, ordinal: int, index: int) -> dict[str, Any]:
        ident = self._identity(rng, ordinal, index)
        key, title, topic = ident["key"], ident["title"], ident["topic"]
        course_uuid = _uuid(rng)
        slug = _slug(f"{title}-{index}")
        year = self._anchor.year
        runs = [
            self._run(rng, ident, course_uuid, f"{term}T{year + offset}", start_days)
            for term, offset, start_days in (
                (1 + _below(rng, 3), 0, -_between(rng, 7, 60)),
                (1 + _below(rng, 3), 1, _between(rng, 30, 120)),
            )
        ]
        image = self._image(rng, "course", course_uuid)
        price = runs[0]["seats"][-1]["price"]
        modified = self._anchor - datetime.timedelta(
            days=_between(rng, 1, 300), minutes=_between(rng, 0, 1439)
        )
        level = _pick(rng, ("Introductory", "Intermediate", "Advanced"))
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
            "type": _uuid(rng),
            "url_slug": slug,
            "course_type": _pick(rng, ("verified-audit", "professional", "executive-education-2u")),
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
            "modified": _stamp(modified),
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
            "enrollment_count": _between(rng, 500, 250_000),
            "recent_enrollment_count": _between(rng, 10, 5000),
            "topics": [{"name": topic, "slug": _slug(topic)}],
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
            "geolocation": self._geolocation(rng),
            "location_restriction": {"restriction_type": "blocklist", "countries": ["KP", "IR"]},
            "in_year_value": {"per_click_usa": "2", "per_click_international": "1"},
            "product_source": {"name": "edX", "slug": "edx", "description": "Open edX partner content"},
            "data_modified_timestamp": _stamp(modified),
            "watchers": [f"watcher{index % 5}@learning.example.org"],
            "programs": [],
            "course_run_keys": [run["key"] for run in runs],
            "editable": False,
            "advertised_course_run_uuid": runs[0]["uuid"],
            **self._served_course(key, runs, modified),
        }

    def _served_course(
        self, key: str, runs: list[dict[str, Any]], modified: datetime.datetime
    ) -> dict[str, Any]:
        """What enterprise-catalog adds to a course when it serves it: its type, the last change,
        the normalized dates and price of the advertised run and of each run."""
        by_run = {run["key"]: self._normalized(run) for run in runs}
        return {
            "content_type": "course",
            "aggregation_key": f"course:{key}",
            "content_last_modified": _stamp(max(modified, self._anchor)),
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

    def _standalone_run(self, rng: random.Random, ordinal: int, index: int) -> dict[str, Any]:
        ident = self._identity(rng, ordinal, index)
        course_uuid = _uuid(rng)
        term = f"{1 + _below(rng, 3)}T{self._anchor.year}"
        return self._run(rng, ident, course_uuid, term, _between(rng, -45, 90))

    def _run(
        self, rng: random.Random, ident: dict[str, Any], course_uuid: str, term: str, start_days: int
    ) -> dict[str, Any]:
        course_key = ident["key"]
        key = f"course-v1:{course_key}+{term}"
        run_uuid = _uuid(rng)
        start = self._anchor + datetime.timedelta(days=start_days, hours=14)
        weeks = _between(rng, 4, 12)
        end = start + datetime.timedelta(weeks=weeks)
        price = _pick(rng, _PRICES)
        track = _pick(rng, ("verified", "professional"))
        pacing = _pick(rng, ("self-paced", "instructor-paced", "self_paced", "instructor_paced"))
        level = _pick(rng, ("introductory", "intermediate", "advanced", "Intermediate", "high_school"))
        language, language_name = _pick(rng, words.LANGUAGES)
        staff = [_pick(rng, self._staff) for _ in range(2)]
        min_effort = _between(rng, 2, 5)
        return {
            "key": key,
            "uuid": run_uuid,
            "title": ident["title"],
            "external_key": f"EXT-{term}-{_below(rng, 10_000):04d}",
            "image": self._image(rng, "run", run_uuid),
            "short_description": f"<p>{ident['title']}, {term} session.</p>",
            "marketing_url": f"{SITE}/course/{_slug(ident['title'])}?run={term}",
            "seats": self._seats(rng, track, price, start),
            "start": _stamp(start),
            "end": _stamp(end),
            "go_live_date": _stamp(start - datetime.timedelta(days=30)),
            "enrollment_start": _stamp(start - datetime.timedelta(days=60)),
            "enrollment_end": _stamp(end - datetime.timedelta(days=7)),
            "weeks_to_complete": weeks,
            "pacing_type": pacing,
            "type": track,
            "run_type": _uuid(rng),
            "status": "published",
            "is_enrollable": True,
            "is_marketable": True,
            "availability": "Current" if start_days <= 0 else "Upcoming",
            "variant_id": _uuid(rng),
            "course": course_key,
            "full_description": f"{ident['title']} in the {ident['subject_name']} curriculum.",
            "announcement": _stamp(start - datetime.timedelta(days=45)),
            "video": {"src": f"{MEDIA}/video/{run_uuid}.mp4", "description": "Course trailer"},
            "content_language": language,
            "license": "all-rights-reserved",
            "outcome": f"<p>Confidence with {ident['topic'].lower()}.</p>",
            "transcript_languages": ["en-us", language] if language != "en-us" else ["en-us"],
            "instructors": [person["given_name"] + " " + person["family_name"] for person in staff],
            "staff": staff,
            "min_effort": min_effort,
            "max_effort": min_effort + _between(rng, 1, 6),
            "modified": _stamp(self._anchor - datetime.timedelta(days=_between(rng, 1, 90))),
            "level_type": level,
            "mobile_available": True,
            "hidden": False,
            "reporting_type": "mooc",
            "eligible_for_financial_aid": rng.random() < 0.7,
            "first_enrollable_paid_seat_price": int(float(price)),
            "has_ofac_restrictions": False,
            "ofac_comment": "No restrictions",
            "enrollment_count": _between(rng, 100, 90_000),
            "recent_enrollment_count": _between(rng, 5, 3000),
            "expected_program_type": {"name": "Professional Certificate", "slug": "professional-certificate"},
            "expected_program_name": f"{ident['subject_name']} Professional Certificate",
            "course_uuid": course_uuid,
            "estimated_hours": float(weeks * min_effort) + 0.5,
            "content_language_search_facet_name": language_name,
            "enterprise_subscription_inclusion": True,
            "programs": [],
            "enrollment_url": f"{ENTERPRISE_SITE}/course/{course_key}/enroll/?course_run_key={key}",
            "content_last_modified": _stamp(self._anchor),
            "parent_content_key": course_key,
            "xapi_activity_id": f"{ENTERPRISE_SITE}/xapi/activities/courserun/{key}",
        }

    def _seats(
        self, rng: random.Random, track: str, price: str, start: datetime.datetime
    ) -> list[dict[str, Any]]:
        deadline = start + datetime.timedelta(days=_between(rng, 14, 40))
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
            "upgrade_deadline": _stamp(deadline),
            "upgrade_deadline_override": _stamp(deadline + datetime.timedelta(days=7))
            if rng.random() < 0.2
            else None,
            "credit_provider": "asu" if rng.random() < 0.1 else None,
            "credit_hours": 3 if rng.random() < 0.1 else None,
            "sku": f"{rng.getrandbits(28):07X}",
            "bulk_sku": f"{rng.getrandbits(28):07X}",
        }
        return [audit, paid]

    def _program(self, rng: random.Random, ordinal: int, index: int) -> dict[str, Any]:
        program_uuid = self._program_uuid(rng, ordinal, index)
        subject_index = _below(rng, len(self._subjects))
        subject_name, _code = words.SUBJECTS[subject_index]
        program_type = _pick(rng, words.PROGRAM_TYPES)
        title = f"{_pick(rng, words.TOPICS)} {program_type}"
        slug = _slug(f"{title}-{index}")
        authors = [_pick(rng, self._organizations)]
        staff = [_pick(rng, self._staff) for _ in range(2)]
        courses = [self._program_course(rng, ordinal, index, position) for position in range(3)]
        weeks = _between(rng, 12, 40)
        modified = self._anchor - datetime.timedelta(days=_between(rng, 1, 200))
        language = _pick(rng, words.LANGUAGES)[1]
        min_price = 3 * int(float(_pick(rng, _PRICES)))
        return {
            "uuid": program_uuid,
            "title": title,
            "subtitle": f"Master {subject_name.lower()} in {weeks} weeks",
            "type": program_type,
            "type_attrs": {
                "uuid": _uuid(rng),
                "slug": _slug(program_type),
                "coaching_supported": program_type == "Masters",
            },
            "status": "active",
            "marketing_slug": slug,
            "marketing_url": f"{SITE}/{_slug(program_type)}/{slug}",
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
                    "uuid": _uuid(rng),
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
            "recent_enrollment_count": _between(rng, 10, 4000),
            "organization_short_code_override": authors[0]["key"],
            "organization_logo_override_url": authors[0]["logo_image_url"],
            "primary_subject_override": {"name": subject_name, "slug": _slug(subject_name)},
            "level_type_override": {"name": "Intermediate", "sort_value": 2},
            "language_override": language,
            "labels": [subject_name, program_type],
            "taxi_form": {"form_id": f"form-{index}", "post_submit_url": f"{SITE}/thanks"},
            "program_duration_override": weeks,
            "data_modified_timestamp": _stamp(modified),
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
            "individual_endorsements": [
                {"endorser": staff[0]["given_name"], "quote": "Rigorous and practical."}
            ],
            "languages": ["en-us"],
            "transcript_languages": ["en-us", "es"],
            "subjects": [self._subjects[subject_index]],
            "price_ranges": [min_price, min_price * 2],
            "staff": staff,
            "credit_redemption_overview": {"summary": "Credit may be redeemed at partner universities."},
            "applicable_seat_types": ["verified", "professional"],
            "instructor_ordering": [{"uuid": person["uuid"]} for person in staff],
            "enrollment_count": _between(rng, 500, 60_000),
            "topics": [{"name": subject_name, "slug": _slug(subject_name)}],
            "credit_value": _between(rng, 0, 12),
            "enterprise_subscription_inclusion": rng.random() < 0.7,
            "geolocation": self._geolocation(rng),
            "location_restriction": {"restriction_type": "allowlist", "countries": ["US", "CA", "GB"]},
            "is_2u_degree_program": program_type == "Masters",
            "in_year_value": {"per_lead_usa": "20", "per_lead_international": "8"},
            "skill_names": [subject_name],
            "skills": [{"name": subject_name, "description": f"Professional {subject_name.lower()}."}],
            "product_source": {"name": "edX", "slug": "edx", "description": "Open edX partner content"},
            "subscription_eligible": rng.random() < 0.5,
            "subscription_prices": [_pick(rng, (39, 49, 79))],
            "enrollment_url": f"{ENTERPRISE_SITE}/program/{program_uuid}/enroll/",
            "content_last_modified": _stamp(self._anchor),
            "parent_content_key": None,
        }

    def _program_uuid(self, rng: random.Random, ordinal: int, index: int) -> str:
        high = rng.getrandbits(128 - _NODE_BITS) << _NODE_BITS
        node = ((ordinal << _INDEX_BITS) | index) ^ self._program_mask
        return str(uuid.UUID(int=high | node, version=4))

    def _program_course(self, rng: random.Random, ordinal: int, index: int, position: int) -> dict[str, Any]:
        organization = _pick(rng, self._organizations)
        topic = _pick(rng, words.TOPICS)
        key = f"{organization['key']}+PRG.{ordinal}.{index}.{position}x"
        return {
            "key": key,
            "uuid": _uuid(rng),
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
            "micromasters_url": f"{SITE}/micromasters/{_slug(title)}",
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
                "organic_url": f"{SITE}/masters/{_slug(title)}",
            },
            "specializations": ["Analytics", "Systems"],
            "program_duration_override": "18 to 24 months",
            "display_on_org_page": True,
            "excluded_from_search": False,
            "excluded_from_seo": False,
        }

    # ------------------------------------------------------------------ shared pieces

    def _image(self, rng: random.Random, kind: str, owner: str) -> dict[str, Any]:
        return {
            "src": f"{MEDIA}/{kind}/image/{owner}.jpg",
            "description": f"Cover image of {kind} {owner[:8]}",
            "height": 270,
            "width": 480,
        }

    def _geolocation(self, rng: random.Random) -> dict[str, str]:
        name, lat, lng = _pick(rng, words.CITIES)
        return {"location_name": name, "lat": lat, "lng": lng}

    def _organization(self, rng: random.Random, index: int) -> dict[str, Any]:
        key, name, color = words.ORGANIZATIONS[index]
        org_uuid = _uuid(rng)
        lower = key.lower()
        return {
            "uuid": org_uuid,
            "key": key,
            "name": name,
            "auto_generate_course_run_keys": True,
            "certificate_logo_image_url": f"{MEDIA}/organization/certificate_logos/{lower}.png",
            "logo_image_url": f"{MEDIA}/organization/logos/{lower}.png",
            "organization_hex_color": color,
            "data_modified_timestamp": _stamp(self._anchor - datetime.timedelta(days=400 + index)),
            "description": f"{name} offers courses in many disciplines.",
            "description_es": f"{name} ofrece cursos en muchas disciplinas.",
            "homepage_url": f"https://www.{lower}.example.org",
            "tags": ["charter", "university"] if index % 2 == 0 else ["industry"],
            "marketing_url": f"{SITE}/school/{lower}",
            "slug": lower,
            "banner_image_url": f"{MEDIA}/organization/banners/{lower}.jpg",
            "enterprise_subscription_inclusion": index != 4,
        }

    def _subject(self, rng: random.Random, name: str, code: str) -> dict[str, Any]:
        slug = _slug(name)
        return {
            "name": name,
            "subtitle": f"Learn {name.lower()} with courses from leading institutions.",
            "description": f"<p>Courses and programs in {name.lower()}.</p>",
            "banner_image_url": f"{MEDIA}/subjects/{slug}/banner.jpg",
            "card_image_url": f"{MEDIA}/subjects/{slug}/card.jpg",
            "slug": slug,
            "uuid": _uuid(rng),
        }

    def _person(self, rng: random.Random, index: int) -> dict[str, Any]:
        given = words.GIVEN_NAMES[index % len(words.GIVEN_NAMES)]
        family = words.FAMILY_NAMES[(index * 7) % len(words.FAMILY_NAMES)]
        key, organization_name, _color = words.ORGANIZATIONS[index % len(words.ORGANIZATIONS)]
        person_uuid = _uuid(rng)
        slug = _slug(f"{given} {family}")
        return {
            "uuid": person_uuid,
            "salutation": "Dr." if index % 3 == 0 else None,
            "given_name": given,
            "family_name": family,
            "bio": f"<p>{given} {family} teaches at {organization_name}.</p>",
            "slug": slug,
            "position": {
                "title": words.JOB_TITLES[index % len(words.JOB_TITLES)],
                "organization_name": organization_name,
                "organization_id": 100 + index % len(words.ORGANIZATIONS),
                "organization_override": None,
                "organization_marketing_url": f"{SITE}/school/{key.lower()}",
                "organization_uuid": _uuid(rng),
                "organization_logo_image_url": f"{MEDIA}/organization/logos/{key.lower()}.png",
            },
            "areas_of_expertise": [{"value": words.TOPICS[index % len(words.TOPICS)]}],
            "profile_image": {
                "medium": {"url": f"{MEDIA}/people/{person_uuid}.jpg", "height": "110", "width": "110"}
            },
            "works": [f"{words.TOPICS[(index + 3) % len(words.TOPICS)]} in Practice"],
            "urls": {"facebook": None, "twitter": None, "blog": f"https://blog.example.org/{slug}"},
            "urls_detailed": [
                {"id": str(index), "type": "blog", "title": "Blog", "url": f"https://blog.example.org/{slug}"}
            ],
            "email": f"{slug}@{key.lower()}.example.org",
            "profile_image_url": f"{MEDIA}/people/{person_uuid}.jpg",
            "major_works": f"<p>Author of {words.TOPICS[index % len(words.TOPICS)]} in Practice.</p>",
            "published": True,
        }


def _index_in(pattern: re.Pattern[str], key: str, catalog: CatalogRecord) -> int | None:
    """The index encoded in a content key, if the key names this catalog and an index within it."""
    match = pattern.match(key)
    if match is None or int(match.group(1)) != catalog.ordinal:
        return None
    index = int(match.group(2))
    return index if index < catalog.item_count else None
