"""Helpers of the compute flows: action events, faults, notifications."""

import functools
import inspect
import secrets
import string
import sys
import traceback

from oslo_log import log as logging
from oslo_utils import excutils

from nova_clone.compute import power_state
from nova_clone.conf import CONF
from nova_clone import exception

LOG = logging.getLogger(__name__)

# instance_faults.message is a 255-character column.
_FAULT_MESSAGE_MAX = 255


def generate_password(length=12):
    """A random password of letters and digits (admin passwords Nova
    makes when the user gives none)."""
    alphabet = string.ascii_letters + string.digits
    return ''.join(secrets.choice(alphabet) for _ in range(length))


def _objects():
    # Imported late: the objects package imports compute state modules.
    from nova_clone import objects
    return objects


# -- instance action events -------------------------------------------------

class EventReporter:
    """Records start and finish of an instance action event.

    Used as a context manager around one step of an action; the event's
    result is Success, or Error with the traceback when the body raises.
    With ``graceful_exit`` (the default) a failure to record the finish is
    logged rather than raised: the step's own outcome must not be replaced
    by a bookkeeping error.
    """

    def __init__(self, context, event_name, host, *instance_uuids,
                 graceful_exit=True):
        self.context = context
        self.event_name = event_name
        self.host = host
        self.instance_uuids = instance_uuids
        self.graceful_exit = graceful_exit

    def __enter__(self):
        event_cls = _objects().InstanceActionEvent
        for uuid in self.instance_uuids:
            try:
                event_cls.event_start(self.context, uuid, self.event_name,
                                      want_result=False, host=self.host)
            except exception.InstanceActionNotFound:
                # No action for this request (e.g. an internal cleanup):
                # nothing to record against, not a failure of the step.
                LOG.debug('No action to record %s against for instance %s',
                          self.event_name, uuid)
            except Exception:
                # The record is for the operator; the step itself must
                # still run (and reach a final state).
                LOG.warning('Could not record the start of event %s for '
                            'instance %s', self.event_name, uuid,
                            exc_info=True)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        event_cls = _objects().InstanceActionEvent
        for uuid in self.instance_uuids:
            try:
                event_cls.event_finish_with_failure(
                    self.context, uuid, self.event_name, exc_val=exc_val,
                    exc_tb=exc_tb, want_result=False)
            except exception.InstanceActionNotFound:
                LOG.debug('No action to finish %s for instance %s',
                          self.event_name, uuid)
            except Exception:
                if not self.graceful_exit:
                    raise
                LOG.warning('Could not record the end of event %s for '
                            'instance %s', self.event_name, uuid,
                            exc_info=True)
        return False


@functools.lru_cache(maxsize=None)
def _signature(function):
    # inspect.signature rebuilds the signature on every call; the wrapped
    # methods run on every build and delete.
    return inspect.signature(function)


def _get_call_arg(function, name, args, kwargs):
    if name in kwargs:
        return kwargs[name]
    try:
        bound = _signature(function).bind_partial(*args, **kwargs)
    except TypeError:
        return None
    return bound.arguments.get(name)


def wrap_instance_event(prefix, graceful_exit=True):
    """Record ``<prefix>_<function name>`` as an event of the action.

    The wrapped method takes (self, context, ...) and an ``instance``
    argument; the event is recorded on this service's host.
    """
    def decorator(function):
        event_name = '%s_%s' % (prefix, function.__name__)

        @functools.wraps(function)
        def wrapper(self, context, *args, **kwargs):
            instance = _get_call_arg(function, 'instance',
                                     (self, context) + args, kwargs)
            with EventReporter(context, event_name, self.host,
                               instance.uuid, graceful_exit=graceful_exit):
                return function(self, context, *args, **kwargs)
        wrapper.event_name = event_name
        return wrapper
    return decorator


def wrap_instance_fault(function):
    """Record an instance fault for any exception the method raises."""
    @functools.wraps(function)
    def wrapper(self, context, *args, **kwargs):
        try:
            return function(self, context, *args, **kwargs)
        except exception.InstanceNotFound:
            raise
        except Exception as exc:
            with excutils.save_and_reraise_exception():
                instance = _get_call_arg(function, 'instance',
                                         (self, context) + args, kwargs)
                if instance is not None:
                    add_instance_fault_from_exc(context, instance, exc,
                                                sys.exc_info())
    return wrapper


def reverts_task_state(function):
    """Clear the task_state when the wrapped manager method fails, so
    that no task stays set on an instance nobody works on."""
    @functools.wraps(function)
    def wrapper(self, context, *args, **kwargs):
        try:
            return function(self, context, *args, **kwargs)
        except exception.UnexpectedTaskStateError:
            # Another operation owns the instance now: leave its task.
            raise
        except Exception:
            with excutils.save_and_reraise_exception():
                instance = _get_call_arg(
                    function, 'instance', (self, context) + args, kwargs)
                _clear_task_state(instance)
    return wrapper


def _clear_task_state(instance):
    try:
        instance.task_state = None
        instance.save()
    except exception.InstanceNotFound:
        pass
    except Exception:
        LOG.exception('Could not clear the task_state of %s',
                      instance.uuid)


# -- instance faults --------------------------------------------------------

def exception_to_dict(fault, message=None):
    """code and message of a fault as the API shows them."""
    code = 500
    if hasattr(fault, 'kwargs'):
        code = fault.kwargs.get('code', 500)
    if message is None:
        if isinstance(fault, exception.NovaException):
            message = fault.format_message()
        else:
            # Non-Nova exceptions may carry internals; show only the type.
            message = type(fault).__name__
    return {'code': code, 'message': message[:_FAULT_MESSAGE_MAX]}


def _fault_details(exc_info, code):
    if exc_info and code == 500:
        return ''.join(traceback.format_exception(*exc_info))
    return ''


def add_instance_fault_from_exc(context, instance, fault, exc_info=None,
                                fault_message=None, raise_exc=False):
    """Store an instance_faults row describing ``fault``; a failure to
    store it is logged, or raised with ``raise_exc``."""
    fault_obj = _objects().InstanceFault(context=context)
    values = exception_to_dict(fault, message=fault_message)
    fault_obj.host = CONF.host if not getattr(instance, 'host', None) \
        else instance.host
    fault_obj.instance_uuid = instance.uuid
    fault_obj.code = values['code']
    fault_obj.message = values['message']
    fault_obj.details = _fault_details(exc_info, values['code'])
    try:
        fault_obj.create()
    except Exception:
        if raise_exc:
            raise
        LOG.exception('Failed to record the fault of instance %s',
                      instance.uuid)
    return fault_obj


# -- versioned notifications ------------------------------------------------

def _dt(value):
    return value.isoformat() if value else None


def _instance_payload(instance, fault=None):
    def get(field, default=None):
        try:
            return getattr(instance, field)
        except Exception:
            return default

    flavor = get('flavor')
    payload = {
        'uuid': instance.uuid,
        'display_name': get('display_name'),
        'host': get('host'),
        'node': get('node'),
        'tenant_id': get('project_id'),
        'user_id': get('user_id'),
        'image_uuid': get('image_ref'),
        'state': get('vm_state'),
        'task_state': get('task_state'),
        'power_state': power_state.name(get('power_state')),
        'availability_zone': get('availability_zone'),
        'created_at': _dt(get('created_at')),
        'launched_at': _dt(get('launched_at')),
        'terminated_at': _dt(get('terminated_at')),
        'deleted_at': _dt(get('deleted_at')),
        'flavor': None,
        'fault': None,
    }
    if flavor is not None:
        payload['flavor'] = {
            'nova_object.name': 'FlavorPayload',
            'nova_object.namespace': 'nova',
            'nova_object.version': '1.4',
            'nova_object.data': {
                'flavorid': getattr(flavor, 'flavorid', None),
                'name': getattr(flavor, 'name', None),
                'vcpus': getattr(flavor, 'vcpus', None),
                'memory_mb': getattr(flavor, 'memory_mb', None),
                'root_gb': getattr(flavor, 'root_gb', None),
            }}
    if fault is not None:
        values = exception_to_dict(fault)
        payload['fault'] = {
            'nova_object.name': 'ExceptionPayload',
            'nova_object.namespace': 'nova',
            'nova_object.version': '1.1',
            'nova_object.data': {
                'exception': type(fault).__name__,
                'exception_message': values['message'],
            }}
    return payload


def notify_about_instance_action(context, instance, host, action, phase=None,
                                 source='nova-compute', exception=None,
                                 bdms=None):
    """Emit ``instance.<action>.<phase>`` as a versioned notification.

    Never raises: a notification problem must not fail the operation.
    """
    from nova_clone import rpc
    if not rpc.notifications_enabled():
        return  # no driver configured: the payload would go nowhere
    event_type = 'instance.%s' % action
    if phase:
        event_type += '.%s' % phase
    payload = {
        'nova_object.name': 'InstanceActionPayload',
        'nova_object.namespace': 'nova',
        'nova_object.version': '1.8',
        'nova_object.data': _instance_payload(instance, fault=exception),
    }
    try:
        notifier = rpc.get_notifier(source, host)
        if exception is not None:
            notifier.error(context, event_type, payload)
        else:
            notifier.info(context, event_type, payload)
    except Exception:
        LOG.warning('Failed to send notification %s', event_type,
                    exc_info=True)
