"""POST /servers/{server_id}/action {"os-migrateLive": ...}: live
migration (Nova keeps it in migrate_server beside the cold migration)."""

from oslo_utils import strutils

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.controllers import servers
from nova_clone.api.schemas import migrate_server_live as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import migrate_server_live as policies

# Refusals the conductor reports while the API waits for it (before
# 2.34): the request was wrong for this server or host.
_PRE_CHECK_ERRORS = (
    exception.NoValidHost, exception.ComputeServiceUnavailable,
    exception.InvalidHypervisorType, exception.InvalidCPUInfo,
    exception.UnableToMigrateToSelf, exception.InvalidLocalStorage,
    exception.InvalidSharedStorage, exception.HypervisorUnavailable,
    exception.MigrationPreCheckError)


def _bool(value):
    return strutils.bool_from_string(value, strict=True)


class MigrateServerLiveController:

    @resource.response(202)
    @resource.action('os-migrateLive')
    @validation.schema(schema.migrate_live_v268, '2.68')
    @validation.schema(schema.migrate_live_v230, '2.30', '2.67')
    @validation.schema(schema.migrate_live_v225, '2.25', '2.29')
    @validation.schema(schema.migrate_live, '2.1', '2.24')
    def migrate_live(self, req, server_id, body):
        context = auth.get_context(req)
        instance = servers.get_server(req, server_id)
        context.can(policies.MIGRATE_LIVE,
                    target={'project_id': instance.project_id})
        values = body['os-migrateLive']
        host = values.get('host')
        block_migration = values['block_migration']
        disk_over_commit = None
        force = None
        if microversion.is_supported(req, '2.30'):
            force = _bool(values.get('force', False))
            if force and not host:
                raise common.bad_request(
                    "Can't force to a non-provided destination")
        if microversion.is_supported(req, '2.25'):
            block_migration = (None if block_migration == 'auto'
                               else _bool(block_migration))
        else:
            block_migration = _bool(block_migration)
            disk_over_commit = _bool(values['disk_over_commit'])
        try:
            servers.compute_api().live_migrate(
                context, instance, block_migration, disk_over_commit, host,
                force=force,
                async_=microversion.is_supported(req, '2.34'))
        except exception.ComputeHostNotFound as exc:
            raise common.bad_request(exc.format_message())
        except _PRE_CHECK_ERRORS as exc:
            raise common.bad_request(exc.format_message())
