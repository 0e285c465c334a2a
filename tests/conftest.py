# Import nova_clone first so that oslo.service's threading backend is chosen
# before any test module imports oslo.messaging (see nova_clone/__init__.py).
import nova_clone  # noqa: F401


# tools/run-tests spreads the modules over workers (pytest-xdist, one
# module per worker at a time, in collection order).  The longest modules
# go first so that none of them is left running alone at the end: the
# slowest integration modules (measured), the rest of the integration
# tests, then the functional and the unit tests.
_SLOWEST = (
    'integration/test_chaos.py',
    # Every route as four users: minutes of its own, not for the tail.
    'functional/api/test_policy_matrix.py',
    'integration/test_live_migration_stack.py',
    'integration/test_boot_stack.py',
    'integration/test_resize_stack.py',
    'integration/test_volumes_stack.py',
    'integration/test_stack_libvirt_moves.py',
    'integration/test_libvirt_resize.py',
    'integration/test_server_rebuild_stack.py',
    'integration/test_libvirt_live_migration.py',
    'integration/test_server_actions_stack.py',
)
_LAYERS = ('integration', 'functional', 'unit')


def _run_order(item):
    path = item.path.as_posix()
    for rank, name in enumerate(_SLOWEST):
        if path.endswith('tests/' + name):
            return (0, rank)
    for rank, layer in enumerate(_LAYERS):
        if '/tests/%s/' % layer in path:
            return (1 + rank, 0)
    return (1 + len(_LAYERS), 0)


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=_run_order)  # stable: a module's tests keep their order
