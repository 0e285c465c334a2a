"""The API side of remote consoles and their tokens.

A console is asked of the instance's compute (an RPC call), which
records the token in the cell database; a token is looked up in every
cell (GET /os-console-auth-tokens/{token}).
"""

from nova_clone.compute import task_states
from nova_clone import context as nova_context
from nova_clone import exception

# Protocols some compute driver may serve, by compute RPC method.
_RPC_METHODS = {'vnc': 'get_vnc_console', 'spice': 'get_spice_console',
                'serial': 'get_serial_console'}
# No console while the server is going away or moving.
_REJECTED_TASKS = (task_states.DELETING, task_states.MIGRATING)


def _objects():
    from nova_clone import objects
    return objects


def get_console(compute_api, context, instance, protocol, console_type):
    """{'url': ...} of a new console of ``instance``."""
    if instance.task_state in _REJECTED_TASKS:
        raise exception.InstanceInvalidState(
            instance_uuid=instance.uuid, attr='task_state',
            state=instance.task_state, method='get_%s_console' % protocol)
    method = _RPC_METHODS.get(protocol)
    if method is None:
        # rdp and mks consoles need hypervisors this cloud has none of.
        raise NotImplementedError()
    connect_info = getattr(compute_api.compute_rpcapi, method)(
        context, instance, console_type)
    return {'url': connect_info['access_url']}


def validate_token(context, token):
    """The ConsoleAuthToken of ``token`` from whichever cell has it."""
    for _cell, cctxt in nova_context.each_cell(context):
        try:
            return _objects().ConsoleAuthToken.validate(cctxt, token)
        except exception.InvalidToken:
            continue
    raise exception.InvalidToken(token='***')
