"""Fixtures of the compute unit tests: a ComputeManager wired to fakes."""

import pytest

from nova_clone.compute import utils as compute_utils
from nova_clone.conf import CONF
from nova_clone import context as nova_context
from nova_clone import rpc
from nova_clone.virt import fake as fake_virt
from nova_clone.virt import imagecache
from tests.unit.compute import fakes


class FakeNotifier:
    def __init__(self, sent, publisher):
        self.sent = sent
        self.publisher = publisher

    def info(self, context, event_type, payload):
        self.sent.append((self.publisher, 'INFO', event_type, payload))

    def error(self, context, event_type, payload):
        self.sent.append((self.publisher, 'ERROR', event_type, payload))


@pytest.fixture
def conf(tmp_path):
    overrides = [
        ('instances_path', str(tmp_path / 'instances'), None),
        ('vif_plugging_timeout', 2, None),
        ('vif_plugging_is_fatal', True, None),
        ('vcpus', 4, 'fake_driver'),
        ('memory_mb', 4096, 'fake_driver'),
        ('local_gb', 40, 'fake_driver'),
        ('spawn_seconds', 0, 'fake_driver'),
        ('fail_spawn', {}, 'fake_driver'),
    ]
    for name, value, group in overrides:
        CONF.set_override(name, value, group=group)
    fake_virt.reset_hypervisors()
    yield CONF
    for name, _, group in overrides:
        CONF.clear_override(name, group=group)
    fake_virt.reset_hypervisors()


@pytest.fixture
def fake_objects(monkeypatch):
    objs = fakes.FakeObjects()
    monkeypatch.setattr(compute_utils, '_objects', lambda: objs)
    return objs


@pytest.fixture
def notifications(monkeypatch):
    sent = []
    monkeypatch.setattr(rpc, 'notifications_enabled', lambda: True)
    monkeypatch.setattr(
        rpc, 'get_notifier',
        lambda service, host=None: FakeNotifier(sent, '%s:%s' % (service,
                                                                 host)))
    return sent


@pytest.fixture
def ctxt():
    return nova_context.RequestContext(user_id='u1', project_id='p1',
                                       roles=['member'])


class Compute:
    """A ComputeManager on fakes, with helpers to run one build."""

    def __init__(self, host, objects):
        from nova_clone.compute import manager
        self.objects = objects
        self.manager = manager.ComputeManager(host=host)
        self.reportclient = fakes.FakeReportClient()
        self.network = fakes.FakeNetworkAPI()
        self.volumes = fakes.FakeVolumeAPI()
        self.conductor = fakes.FakeComputeTaskAPI()
        collab = self.manager.collaborators
        collab.reportclient = self.reportclient
        collab.network_api = self.network
        collab.volume_api = self.volumes
        collab.compute_task_api = self.conductor
        self.manager.init_host()
        self.downloads = []
        self.manager.driver.image_cache = imagecache.ImageCache(
            download=self._download)
        self.manager.pre_start_hook()

    def _download(self, context, image_id, dest_path):
        self.downloads.append(image_id)
        with open(dest_path, 'wb') as f:
            f.write(b'fake image')

    def new_instance(self, **kw):
        kw.setdefault('host', self.manager.host)
        kw.setdefault('node', self.manager.host)
        inst = fakes.FakeInstance(**kw)
        self.objects.instances[inst.uuid] = inst
        return inst

    def build(self, ctxt, instance, wait=True, filter_properties=None,
              host_list=None, bdms=None, image=None):
        self.manager.build_and_run_instance(
            ctxt, instance, image if image is not None else {'id': 'img-1'},
            None, filter_properties or {}, block_device_mapping=bdms or [],
            host_list=host_list, node=self.manager.host)
        if wait:
            assert self.manager.wait_for_builds(10)


@pytest.fixture
def compute(conf, fake_objects, notifications):
    computes = []

    def make(host='host1'):
        c = Compute(host, fake_objects)
        computes.append(c)
        return c
    yield make
    for c in computes:
        c.manager.wait_for_builds(10)
