"""The pools every generated catalog item draws from, made once per seed: organizations,
subjects and staff (in that order from one seeded generator), and the image and place an item
is given.
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from . import _vocabulary as words
from ._content_draws import (
    MEDIA,
    SITE,
    draw_uuid,
    pick,
    seeded_rng,
    slugify,
    stamp,
)

__all__ = ["ContentPools"]


class ContentPools:
    """The organizations, subjects and staff of one sandbox's catalog items, and the anchor
    (naive UTC) their dates are laid out around."""

    def __init__(self, seed: int, anchor: datetime.datetime) -> None:
        # Naive UTC: every date of an item is formatted by ``stamp``, the hot path of item generation.
        self.anchor = anchor.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        self._days: dict[tuple[int, int], str] = {}
        pools = seeded_rng(seed, "pools")
        self.organizations = [self._organization(pools, index) for index in range(len(words.ORGANIZATIONS))]
        self.subjects = [self._subject(pools, name, code) for name, code in words.SUBJECTS]
        self.staff = [self._person(pools, index) for index in range(24)]

    def day(self, days: int, hours: int = 0) -> str:
        """The anchor moved by ``days`` days and ``hours`` hours, as ``stamp`` writes it (kept:
        items' dates are whole days from the anchor, a few hundred of them)."""
        found = self._days.get((days, hours))
        if found is None:
            found = self._days[days, hours] = stamp(self.anchor + datetime.timedelta(days=days, hours=hours))
        return found

    def image(self, rng: random.Random, kind: str, owner: str) -> dict[str, Any]:
        """The cover image of an item (``kind`` ``course`` or ``run``) owned by ``owner``."""
        return {
            "src": f"{MEDIA}/{kind}/image/{owner}.jpg",
            "description": f"Cover image of {kind} {owner[:8]}",
            "height": 270,
            "width": 480,
        }

    def geolocation(self, rng: random.Random) -> dict[str, str]:
        """A city an item is offered from, drawn from ``rng``."""
        name, lat, lng = pick(rng, words.CITIES)
        return {"location_name": name, "lat": lat, "lng": lng}

    def _organization(self, rng: random.Random, index: int) -> dict[str, Any]:
        key, name, color = words.ORGANIZATIONS[index]
        org_uuid = draw_uuid(rng)
        lower = key.lower()
        return {
            "uuid": org_uuid,
            "key": key,
            "name": name,
            "auto_generate_course_run_keys": True,
            "certificate_logo_image_url": f"{MEDIA}/organization/certificate_logos/{lower}.png",
            "logo_image_url": f"{MEDIA}/organization/logos/{lower}.png",
            "organization_hex_color": color,
            "data_modified_timestamp": stamp(self.anchor - datetime.timedelta(days=400 + index)),
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
        slug = slugify(name)
        return {
            "name": name,
            "subtitle": f"Learn {name.lower()} with courses from leading institutions.",
            "description": f"<p>Courses and programs in {name.lower()}.</p>",
            "banner_image_url": f"{MEDIA}/subjects/{slug}/banner.jpg",
            "card_image_url": f"{MEDIA}/subjects/{slug}/card.jpg",
            "slug": slug,
            "uuid": draw_uuid(rng),
        }

    def _person(self, rng: random.Random, index: int) -> dict[str, Any]:
        given = words.GIVEN_NAMES[index % len(words.GIVEN_NAMES)]
        family = words.FAMILY_NAMES[(index * 7) % len(words.FAMILY_NAMES)]
        key, organization_name, _color = words.ORGANIZATIONS[index % len(words.ORGANIZATIONS)]
        person_uuid = draw_uuid(rng)
        slug = slugify(f"{given} {family}")
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
                "organization_uuid": draw_uuid(rng),
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
