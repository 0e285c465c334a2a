"""The route table of compute API v2.1 (paths relative to /v2.1).

One entry per path; the controller modules hold the behaviour.  Order
matters only where a literal segment shadows a parameter
(``/servers/detail`` before ``/servers/{server_id}``).

``POST /servers/{server_id}/action`` is dispatched on the body's key to
the action families of SERVER_ACTION_FAMILIES.  A new family is one
controller module in api/controllers/ named as Nova names it
(``pause_server``, ``migrate_server``, ``shelve`` ...), its methods marked
``@resource.action('<key>')``, with its schemas in api/schemas/ and its
policies in policies/ of the same name; its controller class is added to
SERVER_ACTION_FAMILIES.  The compute API method it calls declares its
precondition (``@preconditions.checked('<key>')``).
"""

from nova_clone.api.controllers import admin_actions
from nova_clone.api.controllers import admin_password
from nova_clone.api.controllers import aggregates
from nova_clone.api.controllers import assisted_volume_snapshots
from nova_clone.api.controllers import attach_interfaces
from nova_clone.api.controllers import availability_zone
from nova_clone.api.controllers import console_auth_tokens
from nova_clone.api.controllers import console_output
from nova_clone.api.controllers import create_backup
from nova_clone.api.controllers import create_image
from nova_clone.api.controllers import deferred_delete
from nova_clone.api.controllers import evacuate
from nova_clone.api.controllers import extensions
from nova_clone.api.controllers import flavor_access
from nova_clone.api.controllers import flavor_extra_specs
from nova_clone.api.controllers import flavors
from nova_clone.api.controllers import floating_ip_pools
from nova_clone.api.controllers import floating_ips
from nova_clone.api.controllers import hosts
from nova_clone.api.controllers import hypervisors
from nova_clone.api.controllers import images
from nova_clone.api.controllers import inject_network_info
from nova_clone.api.controllers import instance_actions
from nova_clone.api.controllers import instance_usage_audit_log
from nova_clone.api.controllers import keypairs
from nova_clone.api.controllers import limits
from nova_clone.api.controllers import lock_server
from nova_clone.api.controllers import migrate_server
from nova_clone.api.controllers import migrations
from nova_clone.api.controllers import multinic
from nova_clone.api.controllers import networks
from nova_clone.api.controllers import pause_server
from nova_clone.api.controllers import power
from nova_clone.api.controllers import quota_classes
from nova_clone.api.controllers import quota_sets
from nova_clone.api.controllers import rebuild
from nova_clone.api.controllers import remote_consoles
from nova_clone.api.controllers import removed
from nova_clone.api.controllers import rescue
from nova_clone.api.controllers import security_groups
from nova_clone.api.controllers import server_diagnostics
from nova_clone.api.controllers import server_external_events
from nova_clone.api.controllers import server_groups
from nova_clone.api.controllers import server_metadata
from nova_clone.api.controllers import server_migrations
from nova_clone.api.controllers import server_password
from nova_clone.api.controllers import server_tags
from nova_clone.api.controllers import server_topology
from nova_clone.api.controllers import servers
from nova_clone.api.controllers import services
from nova_clone.api.controllers import shelve
from nova_clone.api.controllers import simple_tenant_usage
from nova_clone.api.controllers import snapshots
from nova_clone.api.controllers import suspend_server
from nova_clone.api.controllers import tenant_networks
from nova_clone.api.controllers import volume_attachments
from nova_clone.api.controllers import volumes
from nova_clone.api import resource

# The controllers of POST /servers/{server_id}/action, one per family.
SERVER_ACTION_FAMILIES = (
    migrate_server.MigrateServerController,
    power.ServerPowerController,
    pause_server.PauseServerController,
    suspend_server.SuspendServerController,
    lock_server.LockServerController,
    admin_actions.AdminActionsController,
    console_output.ConsoleOutputController,
    floating_ips.FloatingIPActionController,
    multinic.MultinicController,
    rebuild.RebuildController,
    create_image.CreateImageController,
    create_backup.CreateBackupController,
    rescue.RescueController,
    admin_password.AdminPasswordController,
    security_groups.SecurityGroupActionController,
    remote_consoles.ConsoleActionsController,
    inject_network_info.InjectNetworkInfoController,
    deferred_delete.DeferredDeleteController,
    evacuate.EvacuateController,
    shelve.ShelveController,
)


def _build():
    ext = extensions.ExtensionsController()
    flv = flavors.FlavorsController()
    flv_access = flavor_access.FlavorAccessController()
    specs = flavor_extra_specs.FlavorExtraSpecsController()
    kps = keypairs.KeypairController()
    lim = limits.LimitsController()
    quotas = quota_sets.QuotaSetsController()
    qclasses = quota_classes.QuotaClassSetsController()
    srv = servers.ServersController()
    meta = server_metadata.ServerMetadataController()
    ips = server_metadata.ServerIpsController()
    tags = server_tags.ServerTagsController()
    actions = instance_actions.InstanceActionsController()
    events = server_external_events.ServerExternalEventsController()
    svc = services.ServiceController()
    hyp = hypervisors.HypervisorsController()
    az = availability_zone.AvailabilityZoneController()
    groups = server_groups.ServerGroupController()
    aggs = aggregates.AggregateController()
    srv_migrations = server_migrations.ServerMigrationsController()
    diagnostics = server_diagnostics.ServerDiagnosticsController()
    usage = simple_tenant_usage.SimpleTenantUsageController()
    hst = hosts.HostController()
    img = images.ImagesController()
    img_meta = images.ImageMetadataController()
    nets = networks.NetworkController()
    tnets = tenant_networks.TenantNetworkController()
    sgs = security_groups.SecurityGroupController()
    sg_rules = security_groups.SecurityGroupRulesController()
    server_sgs = security_groups.ServerSecurityGroupController()
    fips = floating_ips.FloatingIPController()
    pools = floating_ip_pools.FloatingIPPoolsController()
    vols = volumes.VolumeController()
    snaps = snapshots.SnapshotController()
    avs = assisted_volume_snapshots.AssistedVolumeSnapshotsController()
    audit_log = instance_usage_audit_log.InstanceUsageAuditLogController()
    # nova-network's writes, removed in 18.0.0 and 21.0.0.
    gone = removed.RemovedController('21.0.0').gone
    ifaces = attach_interfaces.InterfaceAttachmentController()
    consoles = remote_consoles.RemoteConsolesController()
    tokens = console_auth_tokens.ConsoleAuthTokensController()
    password = server_password.ServerPasswordController()
    topology = server_topology.ServerTopologyController()
    vol_att = volume_attachments.VolumeAttachmentController()
    server_actions = resource.Actions(
        *(family() for family in SERVER_ACTION_FAMILIES))
    table = [
        ('/extensions', {'GET': ext.index}),
        ('/extensions/{id}', {'GET': ext.show}),

        ('/flavors', {'GET': flv.index, 'POST': flv.create}),
        ('/flavors/detail', {'GET': flv.detail}),
        ('/flavors/{flavor_id}', {'GET': flv.show, 'PUT': flv.update,
                                  'DELETE': flv.delete}),
        ('/flavors/{flavor_id}/action', {'POST': resource.Actions(
            flavor_access.FlavorActionController())}),
        ('/flavors/{flavor_id}/os-flavor-access', {'GET': flv_access.index}),
        ('/flavors/{flavor_id}/os-extra_specs', {'GET': specs.index,
                                                 'POST': specs.create}),
        ('/flavors/{flavor_id}/os-extra_specs/{key}', {
            'GET': specs.show, 'PUT': specs.update,
            'DELETE': specs.delete}),

        ('/os-keypairs', {'GET': kps.index, 'POST': kps.create}),
        ('/os-keypairs/{name}', {'GET': kps.show, 'DELETE': kps.delete}),

        ('/limits', {'GET': lim.index}),
        ('/os-quota-sets/{project_id}', {
            'GET': quotas.show, 'PUT': quotas.update,
            'DELETE': quotas.delete}),
        ('/os-quota-sets/{project_id}/defaults', {'GET': quotas.defaults}),
        ('/os-quota-sets/{project_id}/detail', {'GET': quotas.detail}),
        ('/os-quota-class-sets/{id}', {'GET': qclasses.show,
                                       'PUT': qclasses.update}),

        ('/servers', {'GET': srv.index, 'POST': srv.create}),
        ('/servers/detail', {'GET': srv.detail}),
        ('/servers/{server_id}', {'GET': srv.show, 'PUT': srv.update,
                                  'DELETE': srv.delete}),
        ('/servers/{server_id}/action', {'POST': server_actions}),
        ('/servers/{server_id}/metadata', {
            'GET': meta.index, 'POST': meta.create,
            'PUT': meta.update_all}),
        ('/servers/{server_id}/metadata/{key}', {
            'GET': meta.show, 'PUT': meta.update, 'DELETE': meta.delete}),
        ('/servers/{server_id}/ips', {'GET': ips.index}),
        ('/servers/{server_id}/ips/{network}', {'GET': ips.show}),
        ('/servers/{server_id}/tags', {
            'GET': tags.index, 'PUT': tags.update_all,
            'DELETE': tags.delete_all}),
        ('/servers/{server_id}/tags/{tag}', {
            'GET': tags.show, 'PUT': tags.update, 'DELETE': tags.delete}),
        ('/servers/{server_id}/os-instance-actions', {'GET': actions.index}),
        ('/servers/{server_id}/migrations', {'GET': srv_migrations.index}),
        ('/servers/{server_id}/migrations/{migration_id}', {
            'GET': srv_migrations.show, 'DELETE': srv_migrations.delete}),
        ('/servers/{server_id}/migrations/{migration_id}/action', {
            'POST': resource.Actions(
                server_migrations.ServerMigrationActionController())}),
        ('/servers/{server_id}/diagnostics', {'GET': diagnostics.index}),
        ('/servers/{server_id}/os-instance-actions/{request_id}', {
            'GET': actions.show}),
        ('/servers/{server_id}/os-volume_attachments', {
            'GET': vol_att.index, 'POST': vol_att.create}),
        ('/servers/{server_id}/os-volume_attachments/{volume_id}', {
            'GET': vol_att.show, 'PUT': vol_att.update,
            'DELETE': vol_att.delete}),

        ('/servers/{server_id}/os-interface', {
            'GET': ifaces.index, 'POST': ifaces.create}),
        ('/servers/{server_id}/os-interface/{port_id}', {
            'GET': ifaces.show, 'DELETE': ifaces.delete}),

        ('/servers/{server_id}/remote-consoles', {
            'POST': consoles.create}),
        ('/os-console-auth-tokens/{console_token}', {'GET': tokens.show}),
        ('/servers/{server_id}/os-server-password', {
            'GET': password.index, 'DELETE': password.clear}),
        ('/servers/{server_id}/topology', {'GET': topology.index}),

        ('/os-server-external-events', {'POST': events.create}),

        ('/os-services', {'GET': svc.index}),
        ('/os-services/{id}', {'PUT': svc.update, 'DELETE': svc.delete}),

        ('/os-hypervisors', {'GET': hyp.index}),
        ('/os-hypervisors/detail', {'GET': hyp.detail}),
        ('/os-hypervisors/statistics', {'GET': hyp.statistics}),
        ('/os-hypervisors/{hypervisor_id}', {'GET': hyp.show}),
        ('/os-hypervisors/{hypervisor_id}/uptime', {'GET': hyp.uptime}),
        ('/os-hypervisors/{pattern}/search', {'GET': hyp.search}),
        ('/os-hypervisors/{pattern}/servers', {'GET': hyp.servers}),

        ('/os-migrations', {'GET': migrations.MigrationsController().index}),
        ('/os-availability-zone', {'GET': az.index}),
        ('/os-availability-zone/detail', {'GET': az.detail}),

        ('/os-simple-tenant-usage', {'GET': usage.index}),
        ('/os-simple-tenant-usage/{tenant_id}', {'GET': usage.show}),
        ('/os-instance_usage_audit_log', {'GET': audit_log.index}),
        ('/os-instance_usage_audit_log/{before_timestamp}', {
            'GET': audit_log.show}),

        ('/os-hosts', {'GET': hst.index}),
        ('/os-hosts/{host_name}', {'GET': hst.show, 'PUT': hst.update}),
        ('/os-hosts/{host_name}/startup', {'GET': hst.startup}),
        ('/os-hosts/{host_name}/shutdown', {'GET': hst.shutdown}),
        ('/os-hosts/{host_name}/reboot', {'GET': hst.reboot}),

        ('/images', {'GET': img.index}),
        ('/images/detail', {'GET': img.detail}),
        ('/images/{image_id}', {'GET': img.show, 'DELETE': img.delete}),
        ('/images/{image_id}/metadata', {
            'GET': img_meta.index, 'POST': img_meta.create,
            'PUT': img_meta.update_all}),
        ('/images/{image_id}/metadata/{key}', {
            'GET': img_meta.show, 'PUT': img_meta.update,
            'DELETE': img_meta.delete}),

        ('/os-networks', {'GET': nets.index, 'POST': gone}),
        ('/os-networks/add', {'POST': gone}),
        ('/os-networks/{network_id}', {'GET': nets.show, 'DELETE': gone}),
        ('/os-networks/{network_id}/action', {'POST': gone}),
        ('/os-tenant-networks', {'GET': tnets.index, 'POST': gone}),
        ('/os-tenant-networks/{network_id}', {'GET': tnets.show,
                                              'DELETE': gone}),
        ('/os-security-groups', {'GET': sgs.index, 'POST': sgs.create}),
        ('/os-security-groups/{security_group_id}', {
            'GET': sgs.show, 'PUT': sgs.update, 'DELETE': sgs.delete}),
        ('/os-security-group-rules', {'POST': sg_rules.create}),
        ('/os-security-group-rules/{rule_id}', {'DELETE': sg_rules.delete}),
        ('/servers/{server_id}/os-security-groups', {
            'GET': server_sgs.index}),
        ('/os-floating-ips', {'GET': fips.index, 'POST': fips.create}),
        ('/os-floating-ips/{floating_ip_id}', {'GET': fips.show,
                                               'DELETE': fips.delete}),
        ('/os-floating-ip-pools', {'GET': pools.index}),
        ('/os-volumes', {'GET': vols.index, 'POST': vols.create}),
        ('/os-volumes/detail', {'GET': vols.detail}),
        ('/os-volumes/{volume_id}', {'GET': vols.show,
                                     'DELETE': vols.delete}),
        ('/os-snapshots', {'GET': snaps.index, 'POST': snaps.create}),
        ('/os-snapshots/detail', {'GET': snaps.detail}),
        ('/os-assisted-volume-snapshots', {'POST': avs.create}),
        ('/os-assisted-volume-snapshots/{snapshot_id}', {
            'DELETE': avs.delete}),
        ('/os-snapshots/{snapshot_id}', {'GET': snaps.show,
                                         'DELETE': snaps.delete}),
        ('/os-aggregates', {'GET': aggs.index, 'POST': aggs.create}),
        ('/os-aggregates/{aggregate_id}', {
            'GET': aggs.show, 'PUT': aggs.update, 'DELETE': aggs.delete}),
        ('/os-aggregates/{aggregate_id}/action', {'POST': resource.Actions(
            aggregates.AggregateActionController(aggs.api))}),
        ('/os-aggregates/{aggregate_id}/images', {'POST': aggs.images}),

        ('/os-server-groups', {'GET': groups.index, 'POST': groups.create}),
        ('/os-server-groups/{group_id}', {'GET': groups.show,
                                          'DELETE': groups.delete}),
    ]
    table.extend(removed.routes())
    return table


ROUTES = _build()
