"""Operations whose service renders no XML (license-manager, enterprise-access, edx-enterprise-data)
answer an XML client's request with 406; the client asks once more in JSON, as the spec says
(`x-sdk-json-fallback` on each such operation's 406), and decodes the same models."""

from __future__ import annotations

from enterprise_async.testing import Sandbox


async def test_an_xml_clients_learner_summary_falls_back_to_json() -> None:
    async with Sandbox(seed=0) as sandbox:
        customer = sandbox.data.customers[0].uuid
        async with sandbox.client() as json_client:
            expected = await json_client.learner_summary.list(customer).to_list()
        async with sandbox.client(response_format="xml") as xml_client:
            received = await xml_client.learner_summary.list(customer).to_list()
    assert expected
    assert received == expected
    served = sandbox.requests.find(operation="learner_summary.list")
    refused = [index for index, entry in enumerate(served) if entry.status == 406]
    # the XML client's page asked in XML first (406, as edx-enterprise-data answers), then in JSON
    assert refused
    assert "xml" in served[refused[0]].headers.get("Accept", "")
    assert served[refused[0] + 1].status == 200


async def test_an_xml_clients_policies_and_subscriptions_fall_back_to_json() -> None:
    async with Sandbox(seed=0) as sandbox, sandbox.client(response_format="xml") as client:
        customer = sandbox.data.customers[0].uuid
        policies = await client.policies.list(customer).to_list()
        plans = await client.subscriptions.list(enterprise_customer_uuid=customer).to_list()
    assert [policy.uuid for policy in policies] == [p.uuid for p in sandbox.data.policies_of(customer)]
    assert plans
