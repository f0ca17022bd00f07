"""Paging a listing: what a list call returns (``pager``), how its later pages are planned
(``plans``), fetched (``window``) and checked for completeness (``tally``), and how a page's
envelope is read (``envelope``)."""

from .._cursor import ListingCursor
from .pager import AsyncPager, Page, take

__all__ = ["AsyncPager", "ListingCursor", "Page", "take"]
