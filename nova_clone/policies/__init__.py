"""Default policy rules of the compute API, one module per area."""

import itertools

from nova_clone.policies import admin
from nova_clone.policies import base
from nova_clone.policies import flavor_access
from nova_clone.policies import flavors
from nova_clone.policies import keypairs
from nova_clone.policies import migrate_server
from nova_clone.policies import migrations
from nova_clone.policies import server_metadata
from nova_clone.policies import servers
from nova_clone.policies import shelve
from nova_clone.policies import volumes_attachments


def list_rules():
    return list(itertools.chain(
        base.list_rules(), servers.list_rules(),
        server_metadata.list_rules(), flavors.list_rules(),
        flavor_access.list_rules(), keypairs.list_rules(),
        admin.list_rules(), migrate_server.list_rules(),
        migrations.list_rules(), volumes_attachments.list_rules(),
        shelve.list_rules()))
