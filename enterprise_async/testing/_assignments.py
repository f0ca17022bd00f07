"""``ConfigurationAssignments``: the live assignments of one assignment configuration, made when
read, with what a policy page and an assignment list need of all of them (the spend allocated,
the learner states) counted from the seed's layout and kept as requests change them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ._assignment_data import AssignmentMaker
from ._made import MadeWhenRead
from ._records import AssignmentRecord

__all__ = ["ConfigurationAssignments"]


class ConfigurationAssignments(MadeWhenRead[AssignmentRecord]):
    """A configuration's assignments in creation order: the seed's (``AssignmentMaker``), each
    made when first read, then those requests created. Change one through ``changing``, so that
    what is counted of them follows."""

    def __init__(self, maker: AssignmentMaker | None) -> None:
        """``maker`` None: no configuration, no assignment."""
        super().__init__(maker.layout.count if maker else 0, maker or _no_assignment)
        self._maker = maker
        self._created: dict[str, AssignmentRecord] = {}
        self._counted = False
        self._allocated = 0
        self._learner_states: dict[str, int] = {}

    @property
    def allocated_cents(self) -> int:
        """The spend the ``allocated`` assignments hold, in cents."""
        self._count()
        return self._allocated

    def learner_state_counts(self) -> dict[str, int]:
        """How many assignments are in each learner state (those with one, none at zero)."""
        self._count()
        return {state: count for state, count in self._learner_states.items() if count}

    def find(self, email: str, content_key: str) -> AssignmentRecord | None:
        """The assignment of this e-mail (any case) and content, if any."""
        lowered = email.lower()
        for number in self._maker.numbers_for(email, content_key) if self._maker else ():
            record = self[number]
            if record.content_key == content_key and record.learner_email.lower() == lowered:
                return record
        return next(
            (
                record
                for record in self._created.values()
                if record.content_key == content_key and record.learner_email.lower() == lowered
            ),
            None,
        )

    def by_uuid(self, assignment_uuid: str) -> AssignmentRecord | None:
        """The assignment with this (lowercase) uuid, if any."""
        number = self._maker.number_in(assignment_uuid) if self._maker else None
        if number is not None and self[number].uuid == assignment_uuid:
            return self[number]
        return self._created.get(assignment_uuid)

    def append(self, record: AssignmentRecord) -> None:
        """An assignment a request created, after every other."""
        self._count()
        super().append(record)
        self._created[record.uuid] = record
        self._add(record, 1)

    @contextmanager
    def changing(self, record: AssignmentRecord) -> Iterator[AssignmentRecord]:
        """Change ``record`` in the block; what is counted of the assignments follows."""
        self._count()
        self._add(record, -1)
        try:
            yield record
        finally:
            self._add(record, 1)

    def _count(self) -> None:
        if not self._counted and self._maker is not None:
            layout = self._maker.layout
            self._allocated = layout.allocated_cents()
            self._learner_states = layout.learner_states()
        self._counted = True

    def _add(self, record: AssignmentRecord, sign: int) -> None:
        if record.state == "allocated":
            self._allocated -= sign * record.content_quantity
        if record.learner_state:
            self._learner_states[record.learner_state] = (
                self._learner_states.get(record.learner_state, 0) + sign
            )


def _no_assignment(number: int) -> AssignmentRecord:
    raise IndexError(number)
