"""Default policy rules of the compute API, one module per area."""

import itertools

from nova_clone.policies import admin
from nova_clone.policies import admin_actions
from nova_clone.policies import admin_password
from nova_clone.policies import aggregates
from nova_clone.policies import assisted_volume_snapshots
from nova_clone.policies import attach_interfaces
from nova_clone.policies import base
from nova_clone.policies import console_output
from nova_clone.policies import create_backup
from nova_clone.policies import create_image
from nova_clone.policies import deferred_delete
from nova_clone.policies import evacuate
from nova_clone.policies import flavor_access
from nova_clone.policies import flavors
from nova_clone.policies import hosts
from nova_clone.policies import inject_network_info
from nova_clone.policies import instance_usage_audit_log
from nova_clone.policies import keypairs
from nova_clone.policies import lock_server
from nova_clone.policies import migrate_server
from nova_clone.policies import migrations
from nova_clone.policies import multinic
from nova_clone.policies import networks
from nova_clone.policies import pause_server
from nova_clone.policies import power
from nova_clone.policies import rebuild
from nova_clone.policies import remote_consoles
from nova_clone.policies import rescue
from nova_clone.policies import security_groups
from nova_clone.policies import server_diagnostics
from nova_clone.policies import server_groups
from nova_clone.policies import server_metadata
from nova_clone.policies import server_migrations
from nova_clone.policies import server_password
from nova_clone.policies import server_topology
from nova_clone.policies import servers
from nova_clone.policies import shelve
from nova_clone.policies import simple_tenant_usage
from nova_clone.policies import suspend_server
from nova_clone.policies import volumes
from nova_clone.policies import volumes_attachments


def list_rules():
    return list(itertools.chain(
        base.list_rules(), servers.list_rules(),
        server_metadata.list_rules(), flavors.list_rules(),
        flavor_access.list_rules(), keypairs.list_rules(),
        admin.list_rules(), migrate_server.list_rules(),
        migrations.list_rules(), simple_tenant_usage.list_rules(),
        hosts.list_rules(), networks.list_rules(), volumes.list_rules(),
        instance_usage_audit_log.list_rules(), multinic.list_rules(),
        assisted_volume_snapshots.list_rules(), server_groups.list_rules(),
        aggregates.list_rules(),
        # server actions and sub-resources, one module per family
        power.list_rules(), pause_server.list_rules(),
        suspend_server.list_rules(), lock_server.list_rules(),
        admin_actions.list_rules(), console_output.list_rules(),
        server_diagnostics.list_rules(), rebuild.list_rules(),
        create_image.list_rules(), create_backup.list_rules(),
        rescue.list_rules(), admin_password.list_rules(),
        attach_interfaces.list_rules(), remote_consoles.list_rules(),
        security_groups.list_rules(), inject_network_info.list_rules(),
        server_password.list_rules(), server_topology.list_rules(),
        deferred_delete.list_rules(), evacuate.list_rules(),
        server_migrations.list_rules(), volumes_attachments.list_rules(),
        shelve.list_rules()))
