"""Bulk calls: one call over any number of items, cut into the chunks its spec allows
(``chunks``)."""
