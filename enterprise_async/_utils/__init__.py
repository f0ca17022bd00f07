"""What every layer uses: constants, logging, redaction of secrets, the XML codec, optional extras
and lazily imported names."""
