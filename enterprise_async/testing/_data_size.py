"""How much data a sandbox generates (``DataSize``), and the largest catalog its content keys can
address: read by ``_data`` and by each service's records."""

from __future__ import annotations

from typing import Final

from attrs import field, frozen, validators

from . import _vocabulary as words

__all__ = ["MAX_CATALOG_ITEMS", "DataSize"]

_positive = validators.ge(1)
_not_negative = validators.ge(0)

MAX_CATALOG_ITEMS: Final = 1 << 27
"""Largest catalog the key scheme can address."""


@frozen
class DataSize:
    """How much data a sandbox generates, up to production's sizes and beyond (1,000 plans and 100
    policies a customer, 5,000 assignments a configuration, 100,000 catalog items and learner
    rows). What is large is made when it is read, from the seed: catalog items, a customer's
    plans, a configuration's assignments and a customer's learner rows one at a time, a
    customer's policies and a plan's licenses when first touched; what a page shows of them all
    is counted without making them. So a sandbox starts as fast and as small at any size, and a
    first page comes back about as fast."""

    customers: int = field(default=3, validator=[_positive, validators.le(len(words.CUSTOMER_NAMES))])
    catalogs_per_customer: int = field(default=2, validator=_positive)
    catalog_items: int = field(default=45, validator=[_not_negative, validators.lt(MAX_CATALOG_ITEMS)])
    policies_per_customer: int = field(default=3, validator=_positive)
    assignments_per_configuration: int = field(default=30, validator=_not_negative)
    plans_per_customer: int = field(default=2, validator=_positive)
    licenses_per_plan: int = field(default=20, validator=_not_negative)
    learners_per_customer: int = field(default=24, validator=_positive)
    summary_rows_per_customer: int = field(default=30, validator=_not_negative)
