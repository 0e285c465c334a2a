"""``nova-clone stack status`` and ``nova-clone stack down``."""

import shutil

from nova_clone.stack import procs
from nova_clone.stack import infra as stack_infra
from nova_clone.stack import services as stack_services


def status_rows(layout):
    """(name, pid or None, alive, detail) for every process of the stack."""
    rows = []
    for service in stack_services.all_services(layout):
        pid = procs.read_pid(layout.run_dir, service.name)
        alive = procs.owned_process(pid, layout.marker) is not None
        if service.kind == 'http':
            code = stack_services.answering(service) if alive else None
            detail = ('answering %s (HTTP %d)' % (service.url, code)
                      if code else 'not answering %s' % service.url)
        else:
            detail = ('services row up in %s' % service.db
                      if alive and stack_services.rpc_up(service, pid)
                      else 'no heartbeat in %s' % service.db)
        rows.append((service.name, pid if alive else None, alive, detail))
    if layout.driver == 'libvirt':
        from nova_clone.stack import libvirt as stack_libvirt
        rows.extend(stack_libvirt.status_rows(layout))
    return rows


def status(layout):
    print('Stack %r, state in %s' % (layout.name, layout.state_dir))
    print('%-24s %-8s %-6s %s' % ('SERVICE', 'PID', 'ALIVE', 'STATUS'))
    rows = status_rows(layout)
    for name, pid, alive, detail in rows:
        print('%-24s %-8s %-6s %s' % (name, pid or '-',
                                       'yes' if alive else 'no', detail))
    print('clouds.yaml: %s' % layout.clouds_yaml)
    # 0 when every process of the stack runs, 3 otherwise (as LSB status).
    return 0 if all(alive for _, _, alive, _ in rows) else 3


def down(layout, purge=False, timeout=10.0):
    print('Stopping stack %r (%s)' % (layout.name, layout.state_dir),
          flush=True)
    # Nova's processes first (together), then what they talk to.
    nova = [s.name for s in stack_services.control_services(layout) +
            stack_services.compute_services(layout)]
    rest = [s.name for s in [stack_services.keystone_service(layout)] +
            stack_services.support_services(layout)]
    for wave in (nova, rest):
        results = procs.stop_many(layout.run_dir, wave, layout.marker,
                                  timeout=timeout)
        for name in wave:
            if results[name] != 'not running':
                print('  %-8s %s' % (results[name], name), flush=True)
        if wave is nova:
            _stop_libvirt(layout)
    if purge:
        print('  dropping databases %s' % ', '.join(layout.db_names()),
              flush=True)
        stack_infra.drop_databases(layout.db_names())
        stack_infra.delete_vhosts(layout.vhosts())
        from nova_clone.stack import libvirt as stack_libvirt
        stack_libvirt.purge(layout)
        print('  removing %s' % layout.state_dir, flush=True)
        shutil.rmtree(layout.state_dir, ignore_errors=True)
    print('Stack down.', flush=True)
    return 0


def _stop_libvirt(layout):
    """The daemons of a libvirt stack, and their guests, go with it."""
    from nova_clone.stack import libvirt as stack_libvirt
    result = stack_libvirt.stop(layout)
    if result != 'not running':
        print('  %-8s libvirtd (%s)' % (result,
                                        stack_libvirt.state_dir(layout)),
              flush=True)
