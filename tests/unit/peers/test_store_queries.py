"""The stand-ins' Store: counting and filtering in the database."""

import pytest

from nova_clone.peers import store as store_mod


@pytest.fixture
def store():
    st = store_mod.Store('sqlite://', ['ports', 'nets'])
    st.create_all()
    yield st
    st.dispose()


def _port(store, ident, project, device_id, **extra):
    store.add('ports', dict(id=ident, device_id=device_id, **extra),
              project_id=project)


def test_count_and_counts_per_project(store):
    for n in range(3):
        _port(store, 'a%d' % n, 'p1', '')
    _port(store, 'b0', 'p2', '')
    store.add('nets', {'id': 'n1'}, project_id='p1')
    assert store.count('ports') == 4
    assert store.count('ports', 'p1') == 3
    assert store.count('ports', 'nobody') == 0
    assert store.counts(['ports', 'nets'], 'p1') == {'ports': 3, 'nets': 1}
    assert store.counts(['ports', 'nets']) == {'ports': 4, 'nets': 1}


def test_where_keeps_exact_top_level_matches_in_order(store):
    _port(store, 'p-1', 'p1', 'vm_1')
    _port(store, 'p-2', 'p1', 'vm%1')
    _port(store, 'p-3', 'p1', 'vmX1')
    # The value appears, but not as the top-level device_id.
    _port(store, 'p-4', 'p1', 'other', note={'device_id': 'vm_1'})
    _port(store, 'p-5', 'p2', 'vm_1')
    ids = [d['id'] for d in store.all('ports',
                                      where={'device_id': ['vm_1']})]
    assert ids == ['p-1', 'p-5']
    ids = [d['id'] for d in store.all('ports', project_id='p1', where={
        'device_id': ['vm%1', 'vmX1']})]
    assert ids == ['p-2', 'p-3']
    assert store.all('ports', where={'device_id': ['vm']}) == []
    assert len(store.all('ports')) == 5
