"""Live migration data: what the hosts of one live migration tell each
other, carried by the compute manager from call to call.

The destination fills it in check_can_live_migrate_destination and
pre_live_migration, the source in check_can_live_migrate_source; the
manager sets ``migration`` before it calls the source's driver
live_migration, which reports the copy's progress on that record.
"""

from nova_clone.objects import base
from nova_clone.objects import fields


@base.NovaObjectRegistry.register
class LiveMigrateData(base.NovaObject):
    VERSION = '1.0'

    fields = {
        'is_volume_backed': fields.BooleanField(),
        'migration': fields.ObjectField('Migration'),
    }


@base.NovaObjectRegistry.register
class LibvirtLiveMigrateData(LiveMigrateData):
    # 1.1: dst_taps_in_use
    VERSION = '1.1'

    fields = dict(LiveMigrateData.fields, **{
        # Unset until the source decides ("auto": copy the disks unless
        # the hosts share them).
        'block_migration': fields.BooleanField(),
        'disk_over_commit': fields.BooleanField(),
        'disk_available_mb': fields.IntegerField(nullable=True),
        # Name of the file the destination created in its instances_path;
        # the source seeing it means both share that directory.
        'filename': fields.StringField(),
        'image_type': fields.StringField(),
        'is_shared_instance_path': fields.BooleanField(),
        'is_shared_block_storage': fields.BooleanField(),
        'instance_relative_path': fields.StringField(),
        # The destination's libvirt URI and instances_path: computes on
        # one machine each have their own daemon and directory.
        'dst_connection_uri': fields.StringField(),
        'dst_instances_path': fields.StringField(),
        # The destination's address for the migration stream
        # ([libvirt] live_migration_inbound_addr); None: libvirt's choice.
        'target_connect_addr': fields.StringField(nullable=True),
        # Tap names of the guest's ports that already exist in the
        # destination's network stack: it shares the source's (hosts of
        # one machine), so the guest takes other names there.
        'dst_taps_in_use': fields.ListOfStringsField(),
    })

    def is_on_shared_storage(self):
        return self.is_shared_block_storage or self.is_shared_instance_path
