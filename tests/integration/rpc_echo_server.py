"""A test-only RPC server process: echoes what it receives.

    python rpc_echo_server.py URL EXCHANGE TOPIC SERVER RECORD_FILE

Serves ``echo`` (call: returns what the context and the object looked
like on arrival, plus the object changed), ``record`` (cast: writes the
same to RECORD_FILE) and ``fail`` (raises InstanceNotFound).  Prints READY
once consuming; stops on SIGTERM and exits 0.
"""

import json
import os
import signal
import sys
import threading

import oslo_messaging as messaging


def describe(ctxt, obj):
    return {
        'context': {'request_id': ctxt.request_id,
                    'global_request_id': ctxt.global_request_id,
                    'user_id': ctxt.user_id,
                    'project_id': ctxt.project_id,
                    'roles': ctxt.roles},
        'object': {'class': type(obj).__name__,
                   'version': obj.VERSION,
                   'uuid': obj.uuid,
                   'display_name': obj.display_name,
                   'metadata': obj.metadata,
                   'flavor': obj.flavor.name,
                   'launched_at': obj.launched_at.isoformat(),
                   'changed': sorted(obj.obj_what_changed())},
    }


class Echo:
    target = messaging.Target(version='1.0')

    def __init__(self, record_file):
        self.record_file = record_file

    def echo(self, ctxt, instance):
        seen = describe(ctxt, instance)
        instance.display_name = instance.display_name + '-seen'
        return {'seen': seen, 'instance': instance}

    def record(self, ctxt, instance):
        with open(self.record_file + '.tmp', 'w') as out:
            json.dump(describe(ctxt, instance), out)
        os.rename(self.record_file + '.tmp', self.record_file)

    def fail(self, ctxt, uuid):
        from nova_clone import exception
        raise exception.InstanceNotFound(instance_id=uuid)


def main(url, exchange, topic, server, record_file):
    from nova_clone.conf import CONF
    from nova_clone import objects
    from nova_clone import rpc
    CONF([], project='nova')
    objects.register_all()
    transport = messaging.get_rpc_transport(CONF, url=url)
    rpc_server = rpc.get_server(
        messaging.Target(topic=topic, server=server, exchange=exchange),
        [Echo(record_file)], transport=transport)
    rpc_server.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    print('READY', flush=True)
    while not stop.wait(0.5):
        pass
    rpc_server.stop()
    rpc_server.wait()
    transport.cleanup()
    return 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:6]))
