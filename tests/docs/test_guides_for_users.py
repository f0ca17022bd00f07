"""The guides speak to a user: they name the platform and link its documentation, install the
ways that work today, install what the testing example needs, and speak of behaviour rather
than of the spec's extensions (spec/README.md holds those). CI builds the wheel and the sdist
and checks them with twine."""

from __future__ import annotations

import re

from tests.docs._markdown import GUIDES, ROOT, section

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_names_the_platform_and_links_its_documentation() -> None:
    intro = README.split("\n## ", 1)[0]
    assert "Open edX" in intro
    assert "https://docs.openedx.org" in intro


def test_install_gives_the_ways_that_work_today_and_keeps_the_index_name() -> None:
    install = section("README.md", "## Install")
    assert "pip install enterprise-async" in install  # the name, for when it is published
    assert "not on a package index yet" in install
    for way in ("git clone", "dist/enterprise_async-*.whl", "git+$REPO_URL"):
        assert way in install


def test_the_testing_example_installs_pytest_asyncio() -> None:
    assert re.search(r"```sh\npip install [^\n]*pytest-asyncio", README)


def test_the_readme_speaks_of_behaviour_not_of_spec_extensions() -> None:
    assert re.findall(r"x-sdk-[a-z-]+", README) == []


def test_ci_builds_and_checks_the_wheel_and_the_sdist() -> None:
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    sessions = re.search(r"nox\.options\.sessions = \[(.*?)\]", noxfile)
    assert sessions is not None
    assert '"dist"' in sessions[1]
    assert '"twine", "check"' in noxfile
    assert '"build", "--sdist", "--wheel"' in noxfile


def test_no_paragraph_is_written_twice_across_the_guides() -> None:
    """Each thing is said in one place and linked from the others: no line of prose (60
    characters or more, outside code) is in two guides."""
    seen: dict[str, set[str]] = {}
    for guide in GUIDES:
        in_code = False
        for line in (ROOT / guide).read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                in_code = not in_code
            elif not in_code and len(line.strip()) >= 60:
                seen.setdefault(line.strip(), set()).add(guide)
    assert {line: guides for line, guides in seen.items() if len(guides) > 1} == {}
