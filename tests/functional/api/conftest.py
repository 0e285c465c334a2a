"""Fixtures of the API-level functional tests (app in-process, noauth2)."""

import pytest

from tests.functional.api import apifixture


@pytest.fixture(scope='module')
def bed():
    bed = apifixture.ApiBed()
    yield bed
    bed.close()


@pytest.fixture
def admin(bed):
    return bed.client(user='admin', project=apifixture.ADMIN_PROJECT)


@pytest.fixture
def demo(bed):
    return bed.client()
