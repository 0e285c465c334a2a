"""Every versioned object's fields and remotable methods, fingerprinted.

A primitive crosses process boundaries (RPC, stored flavors and request
specs) tagged with its object's version.  Changing a field or the
signature of a remotable method without raising VERSION would let two
services disagree on what that version holds, so each registered object's
fingerprint (oslo.versionedobjects' ObjectVersionChecker: version and a
hash of fields and remotable methods) is recorded here.  When this test
fails: raise the object's VERSION (and teach obj_make_compatible about
the change), then put the printed fingerprint in ``object_data``.
"""

import pathlib
import subprocess
import sys

from oslo_versionedobjects import fixture

from nova_clone import objects
from nova_clone.objects import base
from nova_clone.objects import fields

ROOT = pathlib.Path(__file__).resolve().parents[3]

object_data = {
    'Aggregate': '1.3-f315cb68906307ca2d1cca84d4753585',
    'AggregateList': '1.3-3ea55a050354e72ef3306adefa553957',
    'BlockDeviceMapping': '1.21-2662bd7af2a3ca9dde6878a7ecc60bf4',
    'BlockDeviceMappingList': '1.18-4a1ae543cd94cbe18ee049b7bb0e18d6',
    'BuildRequest': '1.3-077dee42bed93f8a5b62be77657b7152',
    'BuildRequestList': '1.0-4ee0d9efdfd681fed822da88376e04d2',
    'CellMapping': '1.1-5d652928000a5bc369d79d5bde7e497d',
    'CellMappingList': '1.1-496ef79bb2ab41041fff8bcb57996352',
    'ComputeNode': '1.19-d822b5ff8875d2144d68790b36d9f071',
    'ComputeNodeList': '1.17-3f6430e5022cc1822609430e21860a4a',
    'ConsoleAuthToken': '1.3-ee0749de15c71c00b88fc69f15192f76',
    'Destination': '1.4-3b440d29459e2c98987ad5b25ad1cb2c',
    'Flavor': '1.2-9f75bee60086a2de3fb890d45094325d',
    'FlavorList': '1.1-52b5928600e7ca973aa4fc1e46f3934c',
    'HVSpec': '1.2-de4b9ae8ca33938d865df4aeaa3cc39e',
    'HostMapping': '1.1-1a3390a696792a552ab7bd31a77ba9ac',
    'HostMappingList': '1.1-18ac2bfb8c1eb5545bed856da58a79bc',
    'ImageMeta': '1.8-5e9d0ce3b5030c4721c88c187025e4c4',
    'ImageMetaProps': '1.38-ebb3d31a7cc64874d49fa233a77ef452',
    'Instance': '2.9-80e234e060d47da4db83c34cb1cd7a86',
    'InstanceAction': '1.2-f9f293e526b66fca0d05c3b3a2d13914',
    'InstanceActionEvent': '1.4-dea1f833f606dd68f88281e30941e207',
    'InstanceActionEventList': '1.1-13d92fb953030cdbfee56481756e02be',
    'InstanceActionList': '1.1-a2b2fb6006b47c27076d3a1d48baa759',
    'InstanceFault': '1.2-7ef01f16f1084ad1304a513d6d410a38',
    'InstanceFaultList': '1.2-7becfa44a9c69a33f0b534ad82361daf',
    'InstanceGroup': '1.11-7d54cf9a3f0d55deac3290b8ba296f46',
    'InstanceGroupList': '1.8-be18078220513316abd0ae1b2d916873',
    'InstanceInfoCache': '1.5-ca9a91b1896edcf9c5e1c6f47e0b2b95',
    'InstanceList': '2.6-cc6b0d69ba5265e5ff31f84ffd40c6e3',
    'InstanceMapping': '1.2-bc82537ca278eb17e11f7a89ad170984',
    'InstanceMappingList': '1.3-ee638619aa3d8a82a59c0c83bfa64d78',
    'KeyPair': '1.4-61ebea9a4760a659c285afe4d793bb03',
    'LibvirtLiveMigrateData': '1.1-949ed563a804d563f4ee7069aa2f8f24',
    'LiveMigrateData': '1.0-0b868dd6228a09c3f3e47016dddf6a1c',
    'KeyPairList': '1.3-94aad3ac5c938eef4b5e83da0212f506',
    'Migration': '1.7-6ed577d80e71e9b9d88b8cf358af3781',
    'MigrationList': '1.5-36793f8d65bae421bd5564d09a4de7be',
    'NetworkMetadata': '1.0-2cb8d21b34f87b0261d3e1d1ae5cf218',
    'RequestGroup': '1.3-0458d350a8ec9d0673f9be5640a990ce',
    'RequestLevelParams': '1.1-3a718a0ae0bfdec669e7108631b3f313',
    'RequestSpec': '1.14-1b39e5bd042d4d34bd23a33e70f509ff',
    'SchedulerLimits': '1.0-249c4bd8e62a9b327b7026b7f19cc641',
    'SchedulerRetries': '1.1-3c9c8b16143ebbb6ad7030e999d14cc0',
    'Selection': '1.1-548e3c2f04da2a61ceaf9c4e1589f264',
    'Service': '1.22-ca38e8c0fb3aa3d7a0cc2d601e4e1178',
    'ServiceList': '1.19-5325bce13eebcbf22edc9678285270cc',
    'Tag': '1.1-8b8d7d5b48887651a0e01241672e2963',
    'TaskLog': '1.0-d6eb32ae19f6199594f486c24b7673a3',
    'TagList': '1.1-55231bdb671ecf7641d6a2e9109b5d8e',
}


def _checker():
    """The checker of nova-clone's objects (not those tests register)."""
    objects.register_all()
    ours = {name: classes
            for name, classes in base.NovaObjectRegistry.obj_classes().items()
            if classes[0].__module__.startswith('nova_clone.objects.')}
    return fixture.ObjectVersionChecker(ours)


def _changes(checker):
    """'' when the fingerprints are as recorded, else what to update."""
    expected, actual = checker.test_hashes(object_data)
    if expected == actual:
        return ''
    lines = ['Object fingerprints changed.  Raise the VERSION of each '
             'object whose version part is unchanged, then record in '
             'object_data:']
    for name in sorted(actual):
        lines.append('    %r: %r,  # was %r'
                     % (name, actual[name], expected[name]))
    return '\n'.join(lines)


def test_object_fingerprints_match_the_recorded_versions():
    changes = _changes(_checker())
    assert not changes, changes


def test_a_new_field_without_a_version_bump_is_caught(monkeypatch):
    checker = _checker()
    monkeypatch.setitem(objects.Tag.fields, 'colour', fields.StringField())
    changes = _changes(checker)
    recorded = object_data['Tag']
    assert "'Tag': '%s-" % recorded.split('-')[0] in changes
    assert '# was %r' % recorded in changes


def test_register_all_registers_every_object_module():
    """Importing each module of the package registers nothing that
    register_all() left out (in a fresh interpreter, where no other test
    imported the modules first)."""
    code = (
        'import importlib, pkgutil\n'
        'from nova_clone import objects\n'
        'from nova_clone.objects import base\n'
        'objects.register_all()\n'
        'before = set(base.NovaObjectRegistry.obj_classes())\n'
        'for mod in pkgutil.iter_modules(objects.__path__):\n'
        '    importlib.import_module("nova_clone.objects." + mod.name)\n'
        'print(sorted(set(base.NovaObjectRegistry.obj_classes()) - before))\n'
    )
    result = subprocess.run([sys.executable, '-c', code], check=True,
                            cwd=ROOT, capture_output=True, text=True)
    assert result.stdout.strip() == '[]'
