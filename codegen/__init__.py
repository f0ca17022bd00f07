"""The generator: `spec/openapi.yaml` in, the generated modules of `enterprise_async/_generated/` out.

Run ``python -m codegen`` (or ``nox -s codegen``) after changing the spec; ``--check`` fails when
the committed modules differ from a fresh generation.
"""
