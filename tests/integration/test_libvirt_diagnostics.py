"""Diagnostics and crash dumps of a real libvirt guest (see conftest.py
and test_libvirt_driver.py for the daemons and the guest): the numbers
come from libvirt's statistics, the NMI reaches the guest."""

import pytest

from nova_clone import exception
from tests.integration.libvirt_hosts import wait_console
from tests.integration.test_libvirt_driver import drv  # noqa: F401
from tests.integration.test_libvirt_driver import guest  # noqa: F401

pytestmark = pytest.mark.integration


def test_diagnostics_from_libvirt_stats(drv, guest, libvirt_env):  # noqa: F811
    ctx, inst = guest
    inst.config_drive = ''  # as a server booted without one
    wait_console(drv, ctx, inst, libvirt_env['GUEST_MARKER'])
    diags = drv.get_instance_diagnostics(inst)
    assert diags['config_drive'] is False
    assert (diags['state'], diags['driver']) == ('running', 'libvirt')
    assert diags['num_cpus'] == 1 and diags['num_disks'] >= 1
    assert diags['memory_details']['maximum'] == 128
    # The guest has booted: its CPU ran and its root disk was read.
    assert diags['cpu_details'][0]['time'] > 0
    assert diags['disk_details'][0]['read_bytes'] > 0

    free = drv.get_diagnostics(inst)
    assert free['state'] == 'running'
    assert free['memory'] == 128 * 1024
    assert free['cpu0_time'] > 0
    assert free['vda_read'] > 0


def test_crash_dump_needs_a_running_guest(drv, guest):  # noqa: F811
    ctx, inst = guest
    drv.trigger_crash_dump(inst)
    drv.power_off(inst)
    with pytest.raises(exception.InstanceNotRunning):
        drv.trigger_crash_dump(inst)
    drv.power_on(ctx, inst, [])
