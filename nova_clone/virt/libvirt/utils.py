"""Small helpers of the libvirt driver that need no libvirt connection."""

import os

from nova_clone import exception

# What the driver reports as hypervisor_type, under KVM or TCG alike.
HYPERVISOR_TYPE = 'QEMU'


def host_cpu_flags(cpuinfo='/proc/cpuinfo'):
    try:
        with open(cpuinfo) as f:
            for line in f:
                if line.startswith('flags'):
                    return set(line.split(':', 1)[1].split())
    except OSError:
        pass
    return set()


def check_virt_type(virt_type, cpu_flags=None, kvm_device='/dev/kvm'):
    """Refuse kvm on a host without hardware virtualisation.

    A /dev/kvm alone proves little: nested hosts may offer one whose
    guests hang, so the CPU must show vmx (Intel) or svm (AMD).
    """
    if virt_type != 'kvm':
        return
    flags = host_cpu_flags() if cpu_flags is None else cpu_flags
    if not flags & {'vmx', 'svm'}:
        raise exception.InvalidVirtType(
            virt_type=virt_type,
            reason='the CPU has no vmx or svm flag, so KVM cannot run '
                   'guests; set [libvirt] virt_type = qemu (TCG emulation)')
    if not os.path.exists(kvm_device):
        raise exception.InvalidVirtType(
            virt_type=virt_type, reason='%s does not exist' % kvm_device)


def image_id(image_meta):
    """Id of an image dict or an ImageMeta object (None if unknown)."""
    if image_meta is None:
        return None
    if isinstance(image_meta, dict):
        return image_meta.get('id')
    if hasattr(image_meta, 'obj_attr_is_set') and \
            not image_meta.obj_attr_is_set('id'):
        return None
    return getattr(image_meta, 'id', None)


def image_properties(image_meta):
    """Glance properties of an image dict or an ImageMeta object."""
    if image_meta is None:
        return {}
    if isinstance(image_meta, dict):
        return dict(image_meta.get('properties') or {})
    props = getattr(image_meta, 'properties', None)
    if props is None:
        return {}
    return props.to_dict() if hasattr(props, 'to_dict') else dict(props)


def instance_attr(instance, name, default=None):
    try:
        value = getattr(instance, name)
    except Exception:
        return default
    return default if value is None else value


def flavor_value(instance, field):
    """A size of the instance's flavor (the new one during a resize, the
    old one again after a revert), else the instance's own field."""
    flavor = instance_attr(instance, 'flavor')
    value = getattr(flavor, field, None) if flavor is not None else None
    if value is None:
        value = instance_attr(instance, field)
    return int(value or 0)


def device_name(mountpoint):
    """'/dev/vdb' -> 'vdb'."""
    return (mountpoint or '').rpartition('/')[2]


def supports_direct_io(dirpath):
    """Whether files in ``dirpath`` can be opened with O_DIRECT."""
    probe = os.path.join(dirpath, '.directio.test')
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_DIRECT)
        os.close(fd)
        return True
    except OSError:
        return False
    finally:
        try:
            os.unlink(probe)
        except OSError:
            pass
