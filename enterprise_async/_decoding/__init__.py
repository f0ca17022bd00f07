"""Reading JSON and XML bodies into the same models, and writing models back, through a ``Conversion``.

A ``Conversion`` owns a cattrs converter and everything it uses: a model's hooks are the reader
and the writer the generator wrote for it (``_generated/readers.py``, ``_generated/writers.py``),
which the generated code gives the conversion it makes; a class the generator did not see is
read and written field by field the same way (``readers``, ``writers``).

XML arrives with text leaves (see ``_utils.xml``), JSON with typed ones; the hooks make both land
on the same values, guided only by the models' types:

- scalars are lenient (``scalars``);
- a field the server leaves out, or sends as null, is ``None``; an array is ``[]`` (``hooks``);
- open enums give the member for a documented value (spelling-insensitive) and keep any other
  value as a plain string (``hooks``);
- unions pick their variant by the shape of the value, or by the spec's variant rules the
  conversion was made with (``unions``);
- every model keeps unknown fields in ``extra``, and ``to_dict`` writes them back (``readers``,
  ``writers``);
- a value its declared type does not allow is kept as sent, with a DEBUG record naming the model,
  the path from the top and the declared type; only a top level of the wrong shape is an error
  (``tolerance``), which also hands what drifted from the spec (unknown fields, enum values
  outside it, values kept as sent) to a caller's drift listener (``structure(..., findings)``);
- every decoded model keeps the object it was decoded from (a private attribute), from which
  ``to_dict`` writes the server's own values back (``writers``).
"""

from __future__ import annotations

from .conversion import Conversion
from .failure import DecodeError, type_name
from .fields import known_fields
from .tolerance import Finding, PathsWanted

__all__ = [
    "Conversion",
    "DecodeError",
    "Finding",
    "PathsWanted",
    "known_fields",
    "type_name",
]
