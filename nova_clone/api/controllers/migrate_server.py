"""Server actions that move a server: resize, confirmResize, revertResize
and migrate (cold migration), registered in the servers' action table by
routes.py."""

import webob.exc

from nova_clone.api import auth
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.controllers import servers
from nova_clone.api.schemas import migrate_server as schema
from nova_clone.api import validation
from nova_clone.compute import api_resize
from nova_clone import exception
from nova_clone.policies import migrate_server as policies


def _conflict_for_state(exc, action, server_id):
    """Nova's 409 for an action refused by the server's state."""
    attr = exc.kwargs.get('attr')
    state = exc.kwargs.get('state')
    if attr is not None and state is not None:
        msg = ("Cannot '%(action)s' instance %(server_id)s while it is in "
               "%(attr)s %(state)s" % {'action': action, 'attr': attr,
                                       'state': state,
                                       'server_id': server_id})
    else:
        msg = ("Instance %(server_id)s is in an invalid state for "
               "'%(action)s'" % {'action': action, 'server_id': server_id})
    return webob.exc.HTTPConflict(explanation=msg)


def _call(action, server_id, func, *args, **kwargs):
    """Run a compute API call, turning its refusals into Nova's answers."""
    try:
        return func(servers.compute_api(), *args, **kwargs)
    except exception.InstanceInvalidState as exc:
        raise _conflict_for_state(exc, action, server_id)
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


def _target(instance):
    return {'project_id': instance.project_id, 'user_id': instance.user_id}


@resource.response(202)
@validation.schema(schema.resize)
def resize(req, server_id, body):
    context = auth.get_context(req)
    instance = servers.get_server(req, server_id)
    context.can(policies.SERVERS % 'resize', target=_target(instance))
    values = body['resize']
    disk_config = values.get('OS-DCF:diskConfig')
    _call('resize', server_id, api_resize.resize, context, instance.uuid,
          flavor_id=str(values['flavorRef']),
          auto_disk_config=(None if disk_config is None
                            else disk_config == 'AUTO'))


def _settle(req, server_id, action, rule, func):
    context = auth.get_context(req)
    instance = servers.get_server(req, server_id)
    context.can(policies.SERVERS % rule, target=_target(instance))
    _call(action, server_id, func, context, instance.uuid)


@resource.response(204)
@validation.schema(schema.confirm_resize)
def confirm_resize(req, server_id, body):
    _settle(req, server_id, 'confirmResize', 'confirm_resize',
            api_resize.confirm_resize)


@resource.response(202)
@validation.schema(schema.revert_resize)
def revert_resize(req, server_id, body):
    _settle(req, server_id, 'revertResize', 'revert_resize',
            api_resize.revert_resize)


@resource.response(202)
@validation.schema(schema.migrate_v256, '2.56')
@validation.schema(schema.migrate, '2.1', '2.55')
def migrate(req, server_id, body):
    context = auth.get_context(req)
    instance = servers.get_server(req, server_id)
    context.can(policies.MIGRATE % 'migrate', target=_target(instance))
    host = None
    if microversion.is_supported(req, '2.56'):
        host = (body['migrate'] or {}).get('host')
        if host:
            context.can(policies.MIGRATE % 'migrate:host',
                        target=_target(instance))
    _call('migrate', server_id, api_resize.resize, context, instance.uuid,
          host_name=host)


def register(actions):
    """Add these actions to the servers' action table."""
    actions.register('resize', resize)
    actions.register('confirmResize', confirm_resize)
    actions.register('revertResize', revert_resize)
    actions.register('migrate', migrate)
