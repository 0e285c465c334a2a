"""RequestContext: what travels with every request and RPC message."""

from nova_clone import context as nova_context


def _ctx(**kw):
    values = dict(user_id='u1', project_id='p1', roles=['member', 'reader'],
                  request_id='req-11111111-2222-3333-4444-555555555555',
                  global_request_id='req-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
                  auth_token='tok')
    values.update(kw)
    return nova_context.RequestContext(**values)


def test_round_trip_keeps_identity_and_request_ids():
    ctx = _ctx()
    copy = nova_context.RequestContext.from_dict(ctx.to_dict())
    assert copy.user_id == 'u1'
    assert copy.project_id == 'p1'
    assert copy.roles == ['member', 'reader']
    assert copy.request_id == ctx.request_id
    assert copy.global_request_id == ctx.global_request_id
    assert copy.timestamp == ctx.timestamp
    assert copy.is_admin is False


def test_admin_role_makes_admin_and_elevated_adds_it():
    assert _ctx(roles=['admin']).is_admin
    ctx = _ctx()
    elevated = ctx.elevated(read_deleted='yes')
    assert elevated.is_admin and 'admin' in elevated.roles
    assert elevated.read_deleted == 'yes'
    # The original is left untouched.
    assert not ctx.is_admin and 'admin' not in ctx.roles


def test_scatter_gather_reports_each_cell():
    class Cell:
        def __init__(self, uuid):
            self.uuid = uuid
            self.database_connection = None
            self.transport_url = None

    ctx = _ctx()
    cells = [Cell('c1'), Cell('c2')]

    def work(cctxt, fail_on):
        if cctxt.cell_uuid == fail_on:
            raise ValueError('boom')
        return cctxt.cell_uuid

    # target_cell with a mapping that names no connections still records
    # which cell the copy points at, without touching the caller's context.
    import nova_clone.context as c
    orig = c.set_target_cell

    def fake_set(context, cell):
        context.cell_uuid = cell.uuid

    c.set_target_cell = fake_set
    try:
        results = nova_context.scatter_gather_cells(ctx, cells, 5, work, 'c2')
    finally:
        c.set_target_cell = orig
    assert results['c1'] == 'c1'
    assert isinstance(results['c2'], ValueError)
    assert nova_context.is_cell_failure_sentinel(results['c2'])
    assert ctx.cell_uuid is None
