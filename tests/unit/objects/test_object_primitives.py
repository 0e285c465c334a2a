"""Objects rebuilt from primitives (RPC arguments and results, stored
flavors) equal what oslo.versionedobjects' own hydration builds."""

import datetime

import netaddr
from oslo_versionedobjects import base as ovoo_base

from nova_clone import objects


def _oslo_hydration(cls, primitive):
    """oslo's _obj_from_primitive, which NovaObject overrides (nested
    objects still come through ours)."""
    return ovoo_base.VersionedObject._obj_from_primitive.__func__(
        cls, None, primitive['nova_object.version'], primitive)


def _flavor():
    return objects.Flavor(
        id=7, name='m1.small', memory_mb=2048, vcpus=2, root_gb=20,
        ephemeral_gb=0, flavorid='7', swap=0, rxtx_factor=1.0,
        vcpu_weight=None, disabled=False, is_public=True,
        extra_specs={'hw:cpu': 'x'}, description=None,
        created_at=datetime.datetime(2026, 1, 1, 1, 2, 3))


def _same(ours, theirs):
    assert type(ours) is type(theirs)
    assert ours.VERSION == theirs.VERSION
    assert ours._changed_fields == theirs._changed_fields
    for name in ours.fields:
        assert ours.obj_attr_is_set(name) == theirs.obj_attr_is_set(name), \
            name
        if not ours.obj_attr_is_set(name):
            continue
        mine, other = getattr(ours, name), getattr(theirs, name)
        if isinstance(mine, ovoo_base.VersionedObject):
            _same(mine, other)
            continue
        assert mine == other, name
        assert type(mine) is type(other), name


def test_instance_from_a_primitive_equals_oslos_hydration():
    objects.register_all()
    inst = objects.Instance(
        id=3, uuid='b3f1c9d2-5f0e-4a0a-9f5e-2f4d1a7c9e11', project_id='p',
        user_id='u', vm_state='active', task_state=None, power_state=1,
        memory_mb=2048, vcpus=2, locked=True, launch_index=0,
        launched_at=datetime.datetime(2026, 1, 2, 3, 4, 5),
        access_ip_v4='10.0.0.5', access_ip_v6=netaddr.IPAddress('fd00::5'),
        host=None, metadata={'role': 'web'}, system_metadata={'a': None},
        security_groups=['default'], flavor=_flavor(), old_flavor=None)
    inst.obj_reset_changes(['id', 'uuid'])
    primitive = inst.obj_to_primitive()
    ours = objects.Instance.obj_from_primitive(primitive)
    theirs = _oslo_hydration(objects.Instance, primitive)
    _same(ours, theirs)
    assert ours.launched_at.tzinfo is not None
    assert isinstance(ours.access_ip_v4, netaddr.IPAddress)
    assert 'locked' in ours.obj_what_changed()
    assert 'uuid' not in ours.obj_what_changed()


def test_flavor_of_an_older_version_keeps_it():
    primitive = _flavor().obj_to_primitive(target_version='1.1')
    ours = objects.Flavor.obj_from_primitive(primitive)
    theirs = _oslo_hydration(objects.Flavor, primitive)
    assert ours.VERSION == '1.1'
    _same(ours, theirs)


def test_primitives_equal_oslos_dehydration():
    objects.register_all()
    inst = objects.Instance(
        id=3, uuid='b3f1c9d2-5f0e-4a0a-9f5e-2f4d1a7c9e11', project_id='p',
        vm_state='building', task_state=None, locked=False,
        launched_at=datetime.datetime(2026, 1, 2, 3, 4, 5),
        access_ip_v4='10.0.0.5', metadata={'role': 'web'},
        flavor=_flavor(), new_flavor=None)
    inst.obj_reset_changes(['id', 'uuid'])
    inst.flavor.obj_reset_changes()
    inst.flavor.vcpus = 4
    listed = objects.InstanceList(objects=[inst])
    for obj in (inst, inst.flavor, listed):
        ours = obj.obj_to_primitive()
        theirs = ovoo_base.VersionedObject.obj_to_primitive(obj)
        changes = 'nova_object.changes'
        assert sorted(ours.pop(changes, [])) == sorted(
            theirs.pop(changes, []))
        assert ours == theirs
    # Other versions still take oslo's compatibility path.
    older = inst.flavor.obj_to_primitive(target_version='1.1')
    assert older['nova_object.version'] == '1.1'
    assert older == ovoo_base.VersionedObject.obj_to_primitive(
        inst.flavor, target_version='1.1')


def test_no_object_overrides_a_fields_accessor():
    # obj_to_primitive reads stored values, as oslo's generated property
    # returns them; a class redefining a field's property would differ.
    objects.register_all()
    for name, classes in objects.base.NovaObjectRegistry.obj_classes().items():
        for cls in classes:
            for field in cls.fields:
                prop = getattr(cls, field)
                assert isinstance(prop, property), (name, field)
                assert 'getter' in prop.fget.__qualname__, (name, field)


def test_live_migrate_data_crosses_rpc_with_its_migration():
    objects.register_all()
    data = objects.LibvirtLiveMigrateData(
        filename='.migrate-check-x', dst_instances_path='/srv/b',
        is_shared_instance_path=False, is_shared_block_storage=False,
        target_connect_addr=None,
        migration=objects.Migration(id=4, status='running',
                                    memory_processed=1024))
    ours = objects.LibvirtLiveMigrateData.obj_from_primitive(
        data.obj_to_primitive())
    _same(ours, _oslo_hydration(objects.LibvirtLiveMigrateData,
                                data.obj_to_primitive()))
    assert ours.migration.memory_processed == 1024
    # block_migration left unset: the source decides.
    assert 'block_migration' not in ours
    assert ours.is_on_shared_storage() is False
