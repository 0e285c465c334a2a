"""The object base classes every object module builds on."""

import datetime

from nova_clone import context as nova_context
from nova_clone import exception
from nova_clone import objects
from nova_clone.objects import base
from nova_clone.objects import fields

_CALLS = []


@base.NovaObjectRegistry.register_if(False)
class _Probe(base.NovaObject, base.NovaObjectDictCompat):
    VERSION = '1.0'
    fields = {'x': fields.IntegerField(), 'y': fields.StringField()}

    @base.serialize_args
    @base.remotable_classmethod
    def event(cls, context, when, exc_val=None, exc_tb=None):
        _CALLS.append((when, exc_val, exc_tb))


def test_serialize_args_makes_rpc_safe_arguments():
    try:
        raise ValueError('boom')
    except ValueError as exc:
        _Probe.event(nova_context.get_admin_context(),
                     datetime.datetime(2026, 1, 2, 3, 4, 5),
                     exc_val=exc, exc_tb=exc.__traceback__)
    when, exc_val, exc_tb = _CALLS[-1]
    assert when == '2026-01-02T03:04:05'
    assert exc_val == 'boom'
    assert 'raise ValueError' in exc_tb


def test_dict_compat_and_plain_primitive():
    probe = _Probe(x=1)
    assert probe['x'] == 1 and list(probe) == ['x']
    assert probe.get('y', 'default') == 'default'
    assert base.obj_to_primitive([probe]) == [{'x': 1}]


def test_exceptions_cross_the_serializer():
    objects.register_all()
    serializer = base.NovaObjectSerializer()
    ctx = nova_context.get_admin_context()
    ours = serializer.deserialize_entity(ctx, serializer.serialize_entity(
        ctx, exception.InstanceNotFound(instance_id='abc')))
    assert isinstance(ours, exception.InstanceNotFound)
    assert ours.format_message() == 'Instance abc could not be found.'
    assert ours.code == 404
    foreign = serializer.deserialize_entity(ctx, serializer.serialize_entity(
        ctx, KeyError('k')))
    assert type(foreign) is exception.NovaException
    assert 'k' in str(foreign)


def test_sets_and_tuples_keep_their_objects():
    objects.register_all()
    serializer = base.NovaObjectSerializer()
    ctx = nova_context.get_admin_context()
    cell = objects.CellMapping(uuid=objects.CellMapping.CELL0_UUID,
                               name='cell0')
    wire = serializer.serialize_entity(ctx, {'t': (cell, 1), 's': {2}})
    back = serializer.deserialize_entity(ctx, wire)
    assert isinstance(back['t'], tuple) and back['t'][0].name == 'cell0'
    assert back['s'] == [2]
