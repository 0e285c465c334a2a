"""Scheduler filters and weighers on hand-made host states."""

import pytest

from nova_clone.conf import CONF
from nova_clone.scheduler import filters
from nova_clone.scheduler.filters import availability_zone_filter as az
from nova_clone.scheduler.filters import compute_capabilities_filter as caps
from nova_clone.scheduler.filters import compute_filter
from nova_clone.scheduler.filters import image_props_filter as image
from nova_clone.scheduler import utils
from nova_clone.scheduler import weights
from tests.unit.scheduler import fakes


class Spec:
    def __init__(self, zone=None, extra_specs=None, props=None):
        self.availability_zone = zone
        self.flavor = type('F', (), {'extra_specs': extra_specs or {},
                                     'vcpus': 2, 'memory_mb': 2048,
                                     'root_gb': 10, 'ephemeral_gb': 5,
                                     'swap': 1536})()
        self.image = type('I', (), {'properties': props or {}})()


def test_compute_filter_up_down_disabled():
    flt = compute_filter.ComputeFilter()
    assert flt.host_passes(fakes.host_state('a'), Spec())
    assert not flt.host_passes(fakes.host_state('b', up=False), Spec())
    assert not flt.host_passes(fakes.host_state('c', disabled=True), Spec())
    no_service = fakes.host_state('d')
    no_service.service = None
    assert not flt.host_passes(no_service, Spec())


def test_availability_zone_filter():
    flt = az.AvailabilityZoneFilter()
    host = fakes.host_state('a', zones={'az1'})
    assert flt.host_passes(host, Spec(zone='az1'))
    assert not flt.host_passes(host, Spec(zone='az2'))
    assert flt.host_passes(host, Spec())
    default = fakes.host_state('b')
    assert flt.host_passes(default, Spec(zone=CONF.default_availability_zone))


def test_compute_capabilities_filter():
    flt = caps.ComputeCapabilitiesFilter()
    host = fakes.host_state('a', hypervisor_type='fake',
                            stats={'gpu': 'yes'})
    assert flt.host_passes(host, Spec(extra_specs={
        'capabilities:hypervisor_type': 's== fake'}))
    assert not flt.host_passes(host, Spec(extra_specs={
        'capabilities:hypervisor_type': 'QEMU'}))
    assert flt.host_passes(host, Spec(extra_specs={
        'capabilities:gpu': '<or> no <or> yes'}))
    assert flt.host_passes(host, Spec(extra_specs={
        'capabilities:free_ram_mb': '>= 1024'}))
    assert not flt.host_passes(host, Spec(extra_specs={
        'capabilities:free_ram_mb': '>= 99999999'}))
    # Scoped keys of other namespaces are not this filter's business.
    assert flt.host_passes(host, Spec(extra_specs={'hw:cpu_policy': 'x'}))


def test_image_properties_filter():
    flt = image.ImagePropertiesFilter()
    host = fakes.host_state('a', supported_instances=[
        ('x86_64', 'qemu', 'hvm')], hypervisor_version=8002000)
    assert flt.host_passes(host, Spec())
    assert flt.host_passes(host, Spec(props={'hw_architecture': 'x86_64'}))
    assert not flt.host_passes(host, Spec(props={
        'hw_architecture': 'aarch64'}))
    assert flt.host_passes(host, Spec(props={
        'img_hv_requested_version': '>= 8.0'}))
    assert not flt.host_passes(host, Spec(props={
        'img_hv_requested_version': '>= 9.0'}))


def test_unknown_filter_name_is_a_clear_error():
    with pytest.raises(ValueError) as err:
        filters.load_filters(['ComputeFilter', 'NoSuchFilter'])
    assert 'NoSuchFilter' in str(err.value)


def test_weighers_prefer_free_resources_and_keep_ties_in_order():
    ws = weights.load_weighers(['all'])
    big = fakes.host_state('big', ram=32768)
    small = fakes.host_state('small', ram=4096)
    assert weights.weigh(ws, [small, big], None)[0].obj is big
    a, b = fakes.host_state('a'), fakes.host_state('b')
    assert [w.obj for w in weights.weigh(ws, [a, b], None)] == [a, b]


def test_a_host_with_failed_builds_ranks_after_every_healthy_host():
    ws = weights.load_weighers(['all'])
    # Even with far more free RAM, the failing host comes last.
    failing = fakes.host_state('failing')
    failing.update_from_compute_node({
        'memory_mb': 65536, 'free_ram_mb': 65536, 'vcpus': 16,
        'local_gb': 100, 'free_disk_gb': 100,
        'stats': {'failed_builds': '2'}})
    healthy = fakes.host_state('healthy', ram=4096)
    ranked = [w.obj for w in weights.weigh(ws, [failing, healthy], None)]
    assert ranked == [healthy, failing]
    # Multiplier 0: the count is ignored and free RAM decides again.
    CONF.set_override('build_failure_weight_multiplier', 0.0,
                      group='filter_scheduler')
    try:
        ranked = [w.obj for w in weights.weigh(ws, [healthy, failing],
                                               None)]
        assert ranked == [failing, healthy]
    finally:
        CONF.clear_override('build_failure_weight_multiplier',
                            group='filter_scheduler')


def test_resource_request_from_flavor_and_traits():
    spec = Spec(extra_specs={'trait:HW_CPU_X86_AVX2': 'required',
                             'trait:CUSTOM_SLOW': 'forbidden',
                             'resources:VGPU': '1'})
    rr = utils.ResourceRequest.from_request_spec(spec)
    assert rr.resources == {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 17,
                            'VGPU': 1}
    qs = rr.to_querystring()
    assert 'resources=DISK_GB:17,MEMORY_MB:2048,VCPU:2,VGPU:1' in qs
    assert 'required=HW_CPU_X86_AVX2,!CUSTOM_SLOW' in qs
    assert 'limit=%d' % CONF.scheduler.max_placement_results in qs
