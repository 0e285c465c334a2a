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


# -- the in-memory rows of a cached store -------------------------------------

INDEXES = {'ports': {'device_id': store_mod.field('device_id'),
                     'ip': lambda d: [ip for ip in d.get('ips') or ()]}}


def _file_store(path, cache=True):
    st = store_mod.Store('sqlite:///%s' % path, ['ports', 'nets'],
                         cache=cache, indexes=INDEXES)
    st.create_all()
    return st


@pytest.fixture(params=[True, False], ids=['cached', 'sql'])
def either(request, tmp_path):
    st = _file_store(tmp_path / 'either.sqlite', cache=request.param)
    yield st
    st.dispose()


def test_cached_and_sql_stores_answer_alike(either):
    st = either
    for n in range(4):
        _port(st, 'p%d' % n, 'p1' if n % 2 else 'p2', 'vm%d' % (n % 2),
              ips=['10.0.0.%d' % n])
    st.put('ports', dict(id='p0', device_id='vm1', ips=['10.0.0.9']))
    assert st.delete('ports', 'p2') == 1
    assert st.delete('ports', 'p2') == 0
    assert [d['id'] for d in st.all('ports')] == ['p0', 'p1', 'p3']
    # p0 moved to vm1 after p1 and p3 were filed there: still in creation
    # order.
    assert [d['id'] for d in st.all('ports', where={
        'device_id': ['vm1']})] == ['p0', 'p1', 'p3']
    assert st.all('ports', where={'device_id': ['vm0']}) == []
    assert [d['id'] for d in st.all('ports', project_id='p1', where={
        'device_id': ['vm1', 'vm0']})] == ['p1', 'p3']
    assert [d['id'] for d in st.lookup('ports', 'ip', '10.0.0.9')] == ['p0']
    assert st.lookup('ports', 'ip', '10.0.0.0') == []
    assert st.lookup('ports', 'ip', '10.0.0.2') == []
    assert st.count('ports') == 3 and st.count('ports', 'p2') == 1
    assert st.counts(['ports', 'nets'], 'p1') == {'ports': 2, 'nets': 0}
    assert st.get('ports', 'p2') is None
    assert st.get('ports', 'p0')['ips'] == ['10.0.0.9']


def test_cached_store_hands_out_copies_and_keeps_its_own(tmp_path):
    st = _file_store(tmp_path / 'copies.sqlite')
    doc = {'id': 'a', 'device_id': 'vm', 'nested': {'k': 1}}
    st.add('ports', doc, project_id='p')
    doc['device_id'] = 'changed after add'
    got = st.get('ports', 'a')
    assert got['device_id'] == 'vm'
    got['nested']['k'] = 2
    got['device_id'] = 'changed, not put'
    assert st.get('ports', 'a') == {'id': 'a', 'device_id': 'vm',
                                    'nested': {'k': 1}}
    assert [d['id'] for d in st.all('ports', where={'device_id': ['vm']})
            ] == ['a']


def test_stores_of_one_database_share_rows_and_restart_reloads(tmp_path):
    path = tmp_path / 'shared.sqlite'
    one, two = _file_store(path), _file_store(path)
    _port(one, 'a', 'p', 'vm')
    assert [d['id'] for d in two.all('ports')] == ['a']
    two.delete('ports', 'a')
    _port(two, 'b', 'p', 'vm')
    assert [d['id'] for d in one.all('ports', where={'device_id': ['vm']})
            ] == ['b']
    one.dispose()
    two.dispose()
    del one, two
    again = _file_store(path)   # a restart: rows come from the database
    assert [d['id'] for d in again.all('ports')] == ['b']
    _port(again, 'c', 'p', 'vm')
    assert [d['id'] for d in again.all('ports', where={
        'device_id': ['vm']})] == ['b', 'c']
    assert again.count('ports', 'p') == 2
    # A database remade underneath: create_all forgets what was loaded.
    again.metadata.drop_all(again.engine)
    again.create_all()
    assert again.all('ports') == [] and again.count('ports') == 0
    again.dispose()


def test_watchers_see_every_write_and_reloads(tmp_path):
    st = _file_store(tmp_path / 'watch.sqlite')
    seen = []
    st.watch('ports', lambda old, new: seen.append(
        (old and old['device_id'], new and new['device_id'])))
    _port(st, 'a', 'p', 'vm1')
    st.put('ports', {'id': 'a', 'device_id': 'vm2'})
    st.put('ports', {'id': 'missing', 'device_id': 'x'})
    st.delete('ports', 'a')
    st.delete('ports', 'a')
    st.create_all()
    assert seen == [(None, 'vm1'), ('vm1', 'vm2'), ('vm2', None),
                    (None, None)]
    st.dispose()


def test_cached_store_writes_again_after_losing_its_connection(tmp_path):
    st = _file_store(tmp_path / 'lost.sqlite')
    _port(st, 'a', 'p', 'vm1')
    # The database connection breaks under the writer.
    st._writer.conn.dbapi_connection.close()
    _port(st, 'b', 'p', 'vm1')
    st._writer.conn.dbapi_connection.close()
    st.put('ports', {'id': 'a', 'device_id': 'vm2'})
    st._writer.conn.dbapi_connection.close()
    assert st.delete('ports', 'b') == 1
    st.dispose()
    again = _file_store(tmp_path / 'lost.sqlite', cache=False)
    assert [(d['id'], d['device_id']) for d in again.all('ports')] == [
        ('a', 'vm2')]
    again.dispose()
