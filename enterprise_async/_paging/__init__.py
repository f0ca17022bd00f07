"""Paging a listing: what a list call returns (``pager``), how its later pages are planned
(``plans``), fetched (``window``) and checked for completeness (``tally``), how a page's
envelope is read (``envelope``), and where a listing resumes (``cursor``)."""

from .cursor import ListingCursor
from .pager import AsyncPager, Page, take

__all__ = ["AsyncPager", "ListingCursor", "Page", "take"]
