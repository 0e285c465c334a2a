"""All configuration options, grouped as Nova groups them.

Each module registers one group (or the related DEFAULT options) with
``register_opts(conf)`` and lists them with ``list_opts()`` for the sample
generator.  Import ``CONF`` from here; never register options elsewhere.
"""

from oslo_config import cfg

from nova_clone.conf import api
from nova_clone.conf import compute
from nova_clone.conf import conductor
from nova_clone.conf import console
from nova_clone.conf import database
from nova_clone.conf import default
from nova_clone.conf import fake_driver
from nova_clone.conf import keystone
from nova_clone.conf import libvirt
from nova_clone.conf import quota
from nova_clone.conf import scheduler
from nova_clone.conf import service_clients
from nova_clone.conf import workarounds

CONF = cfg.CONF

MODULES = [
    api, compute, conductor, console, database, default, fake_driver, keystone,
    libvirt, quota, scheduler, service_clients, workarounds,
]

for _module in MODULES:
    _module.register_opts(CONF)
