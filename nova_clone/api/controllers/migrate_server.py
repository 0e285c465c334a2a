"""The server actions that move a server: resize, confirmResize,
revertResize, migrate (cold migration) and os-migrateLive, an action
family dispatched by routes.py.  The compute API holds their
preconditions; a refused state or lock is the fault wrapper's 409."""

from oslo_utils import strutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import migrate_server as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import migrate_server as policies


def _call(func, *args, **kwargs):
    """Run a compute API call, turning its refusals into Nova's answers."""
    try:
        return func(*args, **kwargs)
    except exception.InstanceNotFound as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    except exception.FlavorNotFound:
        raise webob.exc.HTTPBadRequest(
            explanation='Unable to locate requested flavor.')
    except exception.CannotResizeToSameFlavor:
        raise webob.exc.HTTPBadRequest(
            explanation='Resize requires a flavor change.')
    except exception.MigrationNotFound:
        raise webob.exc.HTTPBadRequest(
            explanation='Instance has not been resized.')
    except (exception.ComputeHostNotFound,
            exception.CannotMigrateToSameHost) as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


# Refusals the conductor reports while the API waits for it (a live
# migration before 2.34): the request was wrong for this server or host.
_LIVE_PRE_CHECK_ERRORS = (
    exception.NoValidHost, exception.ComputeServiceUnavailable,
    exception.InvalidHypervisorType, exception.InvalidCPUInfo,
    exception.UnableToMigrateToSelf, exception.InvalidLocalStorage,
    exception.InvalidSharedStorage, exception.HypervisorUnavailable,
    exception.MigrationPreCheckError, exception.ComputeHostNotFound)


def _bool(value):
    return strutils.bool_from_string(value, strict=True)


def _authorized_server(req, server_id, rule):
    """(context, instance) once ``rule`` allows the caller to act."""
    context = auth.get_context(req)
    instance = servers.get_server(req, server_id)
    context.can(rule, target={'project_id': instance.project_id,
                              'user_id': instance.user_id})
    return context, instance


def _settle(req, server_id, method):
    """Confirm or revert: the policy rule and the compute API method share
    the name."""
    context, instance = _authorized_server(req, server_id,
                                           policies.SERVERS % method)
    _call(getattr(servers.compute_api(), method), context, instance)


class MigrateServerController(object):
    """POST /servers/{server_id}/action: the moves of a server."""

    @resource.action('resize')
    @resource.response(202)
    @validation.schema(schema.resize)
    def resize(self, req, server_id, body):
        context, instance = _authorized_server(
            req, server_id, policies.SERVERS % 'resize')
        values = body['resize']
        disk_config = values.get('OS-DCF:diskConfig')
        _call(servers.compute_api().resize, context, instance,
              str(values['flavorRef']),
              auto_disk_config=(None if disk_config is None
                                else disk_config == 'AUTO'))

    @resource.action('confirmResize')
    @resource.response(204)
    @validation.schema(schema.confirm_resize)
    def confirm_resize(self, req, server_id, body):
        _settle(req, server_id, 'confirm_resize')

    @resource.action('revertResize')
    @resource.response(202)
    @validation.schema(schema.revert_resize)
    def revert_resize(self, req, server_id, body):
        _settle(req, server_id, 'revert_resize')

    @resource.action('migrate')
    @resource.response(202)
    @validation.schema(schema.migrate_v256, '2.56')
    @validation.schema(schema.migrate, '2.1', '2.55')
    def migrate(self, req, server_id, body):
        context, instance = _authorized_server(
            req, server_id, policies.MIGRATE % 'migrate')
        host = None
        if microversion.is_supported(req, '2.56'):
            host = (body['migrate'] or {}).get('host')
            if host:
                context.can(policies.MIGRATE % 'migrate:host',
                            target={'project_id': instance.project_id,
                                    'user_id': instance.user_id})
        _call(servers.compute_api().migrate, context, instance,
              host_name=host)

    @resource.action('os-migrateLive')
    @resource.response(202)
    @validation.schema(schema.migrate_live_v268, '2.68')
    @validation.schema(schema.migrate_live_v230, '2.30', '2.67')
    @validation.schema(schema.migrate_live_v225, '2.25', '2.29')
    @validation.schema(schema.migrate_live, '2.1', '2.24')
    def migrate_live(self, req, server_id, body):
        context, instance = _authorized_server(
            req, server_id, policies.MIGRATE % 'migrate_live')
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
        except _LIVE_PRE_CHECK_ERRORS as exc:
            raise common.bad_request(exc.format_message())
