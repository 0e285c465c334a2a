"""compute/host/resize.py: what a failed prep_resize hands back, and the
conductor's reschedule of a move onto the alternates."""

import pytest

from nova_clone.compute.host import collaborators
from nova_clone.compute.host import resize
from nova_clone.compute import utils as compute_utils
from nova_clone.conductor.tasks import migrate
from nova_clone import exception
from nova_clone.objects import request_spec
from tests.unit.conductor.test_build_reschedule import Host


class Record:
    """An instance or migration: save() remembers the saved state."""

    def __init__(self, **fields):
        self.__dict__.update(fields)
        self.saves = []

    def save(self, **kwargs):
        self.saves.append({k: v for k, v in self.__dict__.items()
                           if k != 'saves'})


class Placement:
    def __init__(self, hosts=()):
        self.hosts = {h.service_host: h for h in hosts}
        self.calls = []

    def claim_resources(self, ctxt, uuid, alloc, project_id, user_id,
                        allocation_request_version=None):
        (rp,) = alloc['allocations']
        host = self.hosts[rp[:-3]]
        self.calls.append(('claim', uuid, host.service_host,
                           host.claimable))
        return host.claimable

    def delete_allocation_for_instance(self, ctxt, uuid, **kw):
        self.calls.append(('delete', uuid))

    def move_allocations(self, ctxt, source, target):
        self.calls.append(('move', source, target))


class Recorder:
    """Any method call is recorded as (name, args, kwargs)."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        def record(*args, **kwargs):
            self.calls.append((name, args, kwargs))
        return record


class Tracker(Recorder):
    compute_nodes = {}


class Driver:
    capabilities = {'supports_migrate_to_same_host': False}


@pytest.fixture
def faults(monkeypatch):
    recorded = []
    monkeypatch.setattr(compute_utils, 'add_instance_fault_from_exc',
                        lambda ctxt, inst, exc, *a, **k: recorded.append(
                            (inst.uuid, exc)))
    return recorded


def _instance(host='dest'):
    # Already on this host: prep_resize here is refused.
    return Record(uuid='inst-1', host=host, vm_state='active',
                  task_state='resize_prep', project_id='p', user_id='u')


def _flow(placement, conductor, rt=None):
    collab = collaborators.Collaborators('dest', Driver(), rt or Tracker(),
                                         None, None)
    collab.reportclient = placement
    collab.compute_rpcapi = Recorder()
    collab.compute_task_api = conductor
    return resize.ResizeFlow(collab)


def test_failed_prep_resize_goes_to_the_next_alternate(faults):
    placement, conductor, rt = Placement(), Recorder(), Tracker()
    migration = Record(uuid='mig-1', status='pre-migrating')
    alternates = [Host('dest'), Host('alt-1'), Host('alt-2')]
    with pytest.raises(exception.UnableToMigrateToSelf):
        _flow(placement, conductor, rt).prep_resize(
            None, {}, _instance(), 'flavor', 'spec', {}, 'dest', True,
            migration, alternates)
    # This host's claim is given back; the source's stays with the move.
    assert placement.calls == [('delete', 'inst-1')]
    assert rt.calls == [('drop_move_claim', (None, 'mig-1'), {})]
    ((name, args, kwargs),) = conductor.calls
    assert name == 'migrate_server'
    assert [h.service_host for h in kwargs['host_list']] == ['alt-1',
                                                             'alt-2']
    assert kwargs['do_cast'] and kwargs['request_spec'] == 'spec'
    assert migration.saves == [] and faults == []


def test_failed_prep_resize_without_alternates_rolls_back(faults):
    placement, conductor = Placement(), Recorder()
    instance = _instance()
    migration = Record(uuid='mig-1', status='pre-migrating')
    with pytest.raises(exception.UnableToMigrateToSelf):
        _flow(placement, conductor).prep_resize(
            None, {}, instance, 'flavor', 'spec', {}, 'dest', True,
            migration, [])
    assert placement.calls == [('delete', 'inst-1'),
                               ('move', 'mig-1', 'inst-1')]
    assert conductor.calls == []
    assert migration.saves[-1]['status'] == 'error'
    assert (instance.saves[-1]['vm_state'],
            instance.saves[-1]['task_state']) == ('active', None)
    assert [uuid for uuid, _exc in faults] == ['inst-1']


class Manager:
    def __init__(self, placement):
        self.report_client = placement
        self.compute_rpcapi = Recorder()


def test_reschedule_claims_the_first_alternate_with_room(monkeypatch,
                                                         faults):
    placement = Placement([Host('full', claimable=False), Host('alt-1'),
                           Host('alt-2')])
    manager = Manager(placement)
    migration = Record(uuid='mig-1', status='pre-migrating')
    monkeypatch.setattr(migrate, '_objects', lambda: Record(
        Migration=Record(get_by_instance_and_status=lambda *a: migration)))
    hosts = list(placement.hosts.values())
    migrate._cold_migrate(manager, None, _instance(host='src'), {},
                          'flavor', True, request_spec.RequestSpec(), hosts)
    assert [c for c in placement.calls if c[0] == 'claim'] == [
        ('claim', 'inst-1', 'full', False), ('claim', 'inst-1', 'alt-1',
                                             True)]
    ((name, args, kwargs),) = manager.compute_rpcapi.calls
    assert (name, args[4]) == ('prep_resize', 'alt-1')
    assert [h.service_host for h in kwargs['host_list']] == ['alt-2']


def test_reschedule_with_no_room_left_rolls_back(monkeypatch, faults):
    placement = Placement([Host('full', claimable=False)])
    manager = Manager(placement)
    instance = _instance(host='src')
    migration = Record(uuid='mig-1', status='pre-migrating')
    monkeypatch.setattr(migrate, '_objects', lambda: Record(
        Migration=Record(get_by_instance_and_status=lambda *a: migration)))
    with pytest.raises(exception.MaxRetriesExceeded):
        migrate._cold_migrate(manager, None, instance, {}, 'flavor', True,
                              request_spec.RequestSpec(),
                              list(placement.hosts.values()))
    assert placement.calls[-1] == ('move', 'mig-1', 'inst-1')
    assert migration.saves[-1]['status'] == 'error'
    assert instance.saves[-1]['task_state'] is None
    assert manager.compute_rpcapi.calls == []
