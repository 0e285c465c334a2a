"""The libvirt virt driver (QEMU/KVM guests through libvirt).

``[DEFAULT] compute_driver = libvirt.LibvirtDriver`` resolves to this
package, so the driver class is exported here.  The libvirt Python binding
is imported only when the driver connects, so this package imports
without it.
"""

from nova_clone.virt.libvirt.driver import LibvirtDriver

__all__ = ['LibvirtDriver']
