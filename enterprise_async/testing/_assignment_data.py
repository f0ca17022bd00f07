"""enterprise-access's assignments in the sandbox's initial world, each made on its own from the
seed: assignment ``i`` of a configuration is a pure function of (seed, policy, i), as item ``i``
of a catalog is, so a page makes its own assignments and no other.

Where each one stands is known without making it (``AssignmentLayout``): assignment ``i`` goes to
learner ``i % learners``, for the course at place ``(i % learners + i // learners) % courses`` of
the configuration's order of its catalog's first courses, so that each learner meets every
course once, in turn; past that round, to people the learner invited by e-mail. Its state is
``STATE_MIX[i % 10]``, with the actions that led there. What a policy sums (the spend allocated)
and an assignment list counts (its learner states) are counted from the layout. An assignment's
uuid carries ``i`` in its last 48 bits (masked per configuration), so it is found again from its
uuid alone, and one of a learner and a course from the pair alone (``AssignmentMaker.find``).
"""

from __future__ import annotations

import datetime
import hashlib
import math
import random
from collections.abc import Sequence
from typing import Any, Final

import attrs
from attrs import frozen

from ._content import CatalogContent
from ._content_draws import uuid_text
from ._data_size import DataSize
from ._records import AssignmentRecord, CatalogRecord, Learner, PolicyRecord, iso
from ._seeded import in_days, seeded_rng, seeded_uuid

__all__ = ["STATE_MIX", "AssignmentLayout", "AssignmentMaker", "action", "retired_email"]

STATE_MIX: Final = (
    ("allocated", "notifying"),
    ("allocated", "waiting"),
    ("accepted", None),
    ("cancelled", None),
    ("errored", "failed"),
    ("expired", "expired"),
    ("reversed", None),
    ("allocated", "waiting"),
    ("accepted", None),
    ("errored", "failed"),
)
"""(state, learner_state) of the generated assignments, in turn: every state and learner state appears."""
_ALLOCATED: Final = frozenset(turn for turn, (state, _) in enumerate(STATE_MIX) if state == "allocated")
_NUMBER_BITS: Final = 48
"""Bits of an assignment's uuid that carry its number."""
MAX_ASSIGNMENTS: Final = 1 << _NUMBER_BITS
"""Most assignments a configuration's uuids can number."""


@frozen
class AssignmentLayout:
    """Where each of a configuration's ``count`` assignments stands, from the seed alone."""

    count: int
    learners: int
    courses: tuple[int, ...]
    """The catalog item (its index) at each place of the configuration's order of courses."""
    prices: tuple[int, ...]
    """The price, in cents, of the course at each place."""

    def place(self, number: int) -> int:
        """The place of assignment ``number``'s course."""
        return (number % self.learners + number // self.learners) % len(self.courses)

    def number_of(self, slot: int, place: int) -> int | None:
        """The assignment of learner ``slot``'s own round for the course at ``place`` (None: past
        the count)."""
        number = slot + self.learners * ((place - slot) % len(self.courses))
        return number if number < self.count else None

    def learner_states(self) -> dict[str, int]:
        """How many assignments are in each learner state (those with one)."""
        counts: dict[str, int] = {}
        cycle = len(STATE_MIX)
        for turn, (_, learner_state) in enumerate(STATE_MIX):
            if learner_state is not None and self.count > turn:
                counts[learner_state] = (
                    counts.get(learner_state, 0) + (self.count - turn + cycle - 1) // cycle
                )
        return counts

    def allocated_cents(self) -> int:
        """The spend the ``allocated`` assignments hold, summed place by place.

        A learner's assignments are ``slot + learners * r`` for its rounds ``r``; their states
        come back every ``period`` rounds, so those of one state in one turn are the rounds
        ``first + period * t``, and their courses the places ``slot + first + period * t``
        (modulo the number of courses), which come back every ``span`` terms: one slice of
        the prices repeated, summed whole ``span``s at a time."""
        places = len(self.courses)
        if not self.count or not places:
            return 0
        cycle = len(STATE_MIX)
        period = cycle // math.gcd(self.learners, cycle)
        span = places // math.gcd(period, places)
        prices = self.prices * (period + 1)
        total = 0
        for slot in range(min(self.learners, self.count)):
            rounds = (self.count - slot + self.learners - 1) // self.learners
            for first in range(min(period, rounds)):
                if (slot + self.learners * first) % cycle not in _ALLOCATED:
                    continue
                terms = (rounds - first + period - 1) // period
                start = (slot + first) % places
                whole, rest = divmod(terms, span)
                total += whole * sum(prices[start : start + period * span : period])
                total += sum(prices[start : start + period * rest : period])
        return total


class AssignmentMaker:
    """Makes assignment ``i`` of one policy's configuration, and finds an assignment's number
    from its uuid, or from its learner and course."""

    def __init__(
        self,
        seed: int,
        policy: PolicyRecord,
        learners: Sequence[Learner],
        catalog: CatalogRecord,
        content: CatalogContent,
        size: DataSize,
        anchor: datetime.datetime,
    ) -> None:
        assert policy.assignment_configuration_uuid is not None
        self._seed = seed
        self._policy = policy
        self._configuration = policy.assignment_configuration_uuid
        self._learners = learners
        self._catalog = catalog
        self._content = content
        self._anchor = anchor
        digest = hashlib.sha256(f"{seed}:assignments:{policy.uuid}".encode()).digest()
        self._mask = int.from_bytes(digest[: _NUMBER_BITS // 8], "big")
        self.layout = self._layout(size)
        self._slots: dict[str, int] | None = None
        self._places: dict[str, int] | None = None

    def _layout(self, size: DataSize) -> AssignmentLayout:
        content, catalog = self._content, self._catalog
        candidates = content.first_courses(catalog)
        places = len(candidates)
        if not places:
            return AssignmentLayout(0, len(self._learners), (), ())
        prices = content.first_course_prices(catalog)
        offset, stride = self._mask % places, 1 + (self._mask >> 24) % places  # the order, from the mask
        while math.gcd(stride, places) != 1:
            stride += 1
        order = [(offset + stride * place) % places for place in range(places)]
        count = min(size.assignments_per_configuration, MAX_ASSIGNMENTS)
        return AssignmentLayout(
            count,
            len(self._learners),
            tuple(candidates[turn] for turn in order),
            tuple(prices[turn] for turn in order),
        )

    def __call__(self, number: int) -> AssignmentRecord:
        """Assignment ``number``, from its own seeded generator."""
        layout = self.layout
        rng = seeded_rng(self._seed, "assignment", self._policy.uuid, number)
        slot, round_ = number % layout.learners, number // layout.learners
        learner = self._learners[slot]
        if round_ >= len(layout.courses):  # past the learner's round of the courses: someone invited
            learner = _invited(learner, number)
        key, title, price = self._content.course_head(self._catalog, layout.courses[layout.place(number)])
        state, learner_state = STATE_MIX[number % len(STATE_MIX)]
        age = rng.randint(100, 150) if state == "expired" else rng.randint(1, 80)
        created = self._anchor - in_days(age) + datetime.timedelta(minutes=rng.randint(0, 1439))
        high = rng.getrandbits(128 - _NUMBER_BITS) << _NUMBER_BITS
        uuid = uuid_text(high | (number ^ self._mask))
        scrubbed = state == "expired" and _turn(number) % 2
        record = AssignmentRecord(
            uuid=uuid,
            configuration_uuid=self._configuration,
            policy_uuid=self._policy.uuid,
            learner_email=retired_email(uuid) if scrubbed else learner.email,
            lms_user_id=None if learner_state == "notifying" else learner.lms_user_id,
            content_key=key,
            content_title=title,
            content_quantity=-price,
            state=state,
            learner_state=learner_state,
            created=created,
            transaction_uuid=seeded_uuid(rng) if state in ("accepted", "reversed") else None,
            expiration=created + in_days(90),
            expiration_reason="NINETY_DAYS_PASSED" if number % 3 else "SUBSIDY_EXPIRED",
            position=number,
        )
        record.actions = _history(rng, record, number)
        record.error_reason = _error_reason(state, number)
        return record

    def number_in(self, assignment_uuid: str) -> int | None:
        """The number an assignment uuid carries, if it is one of the seed's (check the
        assignment made: a uuid a request drew may carry one too)."""
        try:
            value = int(assignment_uuid.replace("-", ""), 16)
        except ValueError:
            return None
        number = (value & (MAX_ASSIGNMENTS - 1)) ^ self._mask
        return number if number < self.layout.count else None

    def numbers_for(self, email: str, content_key: str) -> list[int]:
        """The seed's assignments that may be of this e-mail and content (check each made): the
        learner's own for the course, or the one that invited the e-mail."""
        if not self.layout.count:
            return []
        if self._slots is None or self._places is None:
            self._slots = {learner.email.lower(): slot for slot, learner in enumerate(self._learners)}
            heads = (self._content.course_head(self._catalog, index) for index in self.layout.courses)
            self._places = {key: place for place, (key, _, _) in enumerate(heads)}
        lowered = email.lower()
        numbers: list[int | None] = []
        slot, place = self._slots.get(lowered), self._places.get(content_key)
        if slot is not None and place is not None:
            numbers.append(self.layout.number_of(slot, place))
        invited = lowered.partition("@")[0].rpartition(".")[2]
        if invited.isdigit():
            numbers.append(int(invited))
        return [number for number in numbers if number is not None and number < self.layout.count]


def retired_email(uuid: str) -> str:
    """The address enterprise-access writes over a learner's e-mail when it scrubs an assignment
    (its ``RETIRED_EMAIL_ADDRESS_FORMAT``, ``retired_user<16 hex digits>@retired.invalid``): never null."""
    return f"retired_user{uuid.replace('-', '')[:16]}@retired.invalid"


def _turn(number: int) -> int:
    """How many times the states came round before assignment ``number``."""
    return number // len(STATE_MIX)


def _invited(learner: Learner, number: int) -> Learner:
    """A learner of the customer's domain invited by e-mail, number ``number``."""
    local, domain = learner.email.split("@", 1)
    return attrs.evolve(learner, email=f"{local}.{number}@{domain}", lms_user_id=10_000_000 + number)


def action(
    rng: random.Random, action_type: str, moment: datetime.datetime, error: str | None = None
) -> dict[str, Any]:
    """One action record of an assignment."""
    return {
        "created": iso(moment),
        "modified": iso(moment),
        "uuid": seeded_uuid(rng),
        "action_type": action_type,
        "completed_at": None if error else iso(moment),
        "error_reason": error,
        "learner_acknowledged": False,
    }


def _history(rng: random.Random, record: AssignmentRecord, number: int) -> list[dict[str, Any]]:
    moment = record.created
    history = []
    if record.lms_user_id is not None:
        history.append(action(rng, "learner_linked", moment))
    if record.learner_state == "notifying":
        return history
    moment += datetime.timedelta(minutes=2)
    history.append(action(rng, "notified", moment, "email_error" if record.state == "errored" else None))
    follow_up = {"cancelled": "cancelled", "expired": "expired", "reversed": "reversed"}.get(record.state)
    if record.learner_state == "waiting" and _turn(number) % 2:
        history.append(action(rng, "reminded", moment + in_days(3)))
    if follow_up:
        history.append(action(rng, follow_up, moment + in_days(rng.randint(4, 20))))
    return history


def _error_reason(state: str, number: int) -> str | dict[str, str] | None:
    if state != "errored":
        return None
    if number % 2:
        return "email_error"
    return {"action_type": "notified", "error_reason": "email_error"}
