"""What the generator writes down about the spec, as the runtime reads it (``operations``): an
operation and what it is made of (parameters and their rules, outcomes, pagination, chunks, job
results, limits, identity), the rules that choose a union's class, and the whole ``ApiSpec``."""

from .operations import *  # noqa: F403 - the vocabulary is the whole of this layer
from .operations import __all__ as __all__
