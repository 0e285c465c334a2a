"""pytest fixtures of the functional tests: the in-process cloud.

``cloud``        the process's test cloud (started on first use, shared by
                 every test of the session; see fixtures.get_cloud), with
                 servers a test created deleted after it.
``admin_api``    ApiClient of the admin user (project admin).
``demo_api``     ApiClient of the demo user (member of project demo).
``volumes``      the demo user's volumes in the Cinder stand-in (those a
                 test created deleted after it, once its servers are)
``cloud_factory`` get_cloud itself, for a module that needs other start-up
                 knobs (e.g. ``cloud_factory(computes=3)``).

A failing test that used the cloud gets the tail of the cloud's log in
its report.
"""

import os
import sys

import pytest

# Test modules import the helpers as tests.functional.fixtures; make the
# repository root importable however pytest was started.
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.functional import cinder  # noqa: E402
from tests.functional import fixtures  # noqa: E402


@pytest.fixture(scope='session')
def _session_cloud():
    yield fixtures.get_cloud
    fixtures.stop_cloud()


def _module_uses_cloud(session, module):
    return any('_session_cloud' in item.fixturenames
               for item in session.items if item.module is module)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    # The cloud's services read the process-wide CONF: left running beside
    # a module that points CONF elsewhere (its own peers, or a unit test's
    # databases), their periodic tasks would reach those.  So the cloud
    # stops before a module that does not use it.
    if nextitem is None or (
            nextitem.module is not item.module and
            not _module_uses_cloud(item.session, nextitem.module)):
        fixtures.stop_cloud()


@pytest.fixture
def cloud_factory(_session_cloud, request):
    made = []

    def factory(**knobs):
        cloud = _session_cloud(**knobs)
        made.append(cloud)
        return cloud
    yield factory
    for cloud in made:
        cloud.cleanup_servers()
    if made:
        request.node._nc_cloud = made[-1]


@pytest.fixture
def cloud(_session_cloud, request):
    test_cloud = _session_cloud()
    test_cloud.cloud.reassert_config()
    request.node._nc_cloud = test_cloud
    yield test_cloud
    test_cloud.cleanup_servers()


@pytest.fixture
def admin_api(cloud):
    return cloud.admin_api


@pytest.fixture
def demo_api(cloud):
    return cloud.demo_api


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    test_cloud = getattr(item, '_nc_cloud', None)
    if report.failed and test_cloud is not None and call.when == 'call':
        report.sections.append(('embedded cloud log (tail)',
                                test_cloud.log_tail()))


@pytest.fixture
def volumes(cloud, demo_api):
    made = cinder.Volumes(cloud, demo_api)
    yield made
    cloud.cleanup_servers()
    made.delete_made()
