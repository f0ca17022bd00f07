"""``enroll``: bulk enrollment of learners in course runs."""

from __future__ import annotations

import click

from .._client import EnterpriseClient
from ._context import ApiSettings, run_with_client
from ._options import api_options, json_option, list_option
from ._output import print_document, show
from ._views import enrollment_view

__all__ = ["enroll"]


@click.command()
@click.argument("enterprise_customer_uuid")
@list_option("--email", "emails", required=True, help="Learner to enroll", metavar="EMAIL")
@list_option(
    "--course-run-key", "course_run_keys", required=True, help="Course run to enroll in", metavar="KEY"
)
@click.option("--notify/--no-notify", default=None, help="Whether learners are notified.")
@json_option
@api_options()
def enroll(
    enterprise_customer_uuid: str,
    emails: list[str],
    course_run_keys: list[str],
    notify: bool | None,
    as_json: bool,
    api: ApiSettings,
) -> None:
    """Enroll learners of ENTERPRISE_CUSTOMER_UUID in course runs, in bulk; prints the job id."""

    async def work(client: EnterpriseClient) -> None:
        job = await client.enrollments.bulk_enroll(
            enterprise_customer_uuid, emails=emails, course_run_keys=course_run_keys, notify=notify
        )
        if as_json:
            print_document(job)
        else:
            show(enrollment_view(job))

    run_with_client(api, work)
