"""The network model: what a server's network looks like to Nova.

``NetworkInfo`` is a list of ``VIF`` dicts in Nova's JSON shape (id,
address, network {id, label, bridge, subnets [{cidr, ips, gateway, dns,
routes, version, meta}], meta}, type, details, devname, ovs_interfaceid,
active, vnic_type, profile, preserve_on_delete, meta).  It is what
``instance_info_caches.network_info`` stores; ``hydrate`` reads it back
from JSON or plain lists.
"""

from oslo_serialization import jsonutils

VIF_TYPE_OVS = 'ovs'
VIF_TYPE_UNBOUND = 'unbound'
VIF_TYPE_BINDING_FAILED = 'binding_failed'
VNIC_TYPE_NORMAL = 'normal'
# Name length Linux allows for a tap device.
NIC_NAME_LEN = 14


class Model(dict):
    """A dict whose missing keys read as None through attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name)

    def get_meta(self, key, default=None):
        return (self.get('meta') or {}).get(key, default)


class IP(Model):
    def __init__(self, address=None, type=None, version=None, **kwargs):
        super().__init__(address=address, type=type, version=version,
                         meta=kwargs.pop('meta', {}) or {}, **kwargs)


class FixedIP(IP):
    def __init__(self, floating_ips=None, **kwargs):
        kwargs.setdefault('type', 'fixed')
        super().__init__(floating_ips=list(floating_ips or []), **kwargs)


class Subnet(Model):
    def __init__(self, cidr=None, ips=None, gateway=None, dns=None,
                 routes=None, version=None, meta=None, **kwargs):
        super().__init__(cidr=cidr, ips=[FixedIP(**ip) for ip in ips or []],
                         gateway=IP(**gateway) if gateway else IP(),
                         dns=[IP(**d) for d in dns or []],
                         routes=list(routes or []), version=version,
                         meta=meta or {}, **kwargs)


class Network(Model):
    def __init__(self, id=None, label=None, bridge=None, subnets=None,
                 meta=None, **kwargs):
        super().__init__(id=id, label=label, bridge=bridge,
                         subnets=[Subnet(**s) for s in subnets or []],
                         meta=meta or {}, **kwargs)


class VIF(Model):
    def __init__(self, id=None, address=None, network=None, type=None,
                 details=None, devname=None, ovs_interfaceid=None,
                 qbh_params=None, qbg_params=None, active=False,
                 vnic_type=VNIC_TYPE_NORMAL, profile=None,
                 preserve_on_delete=False, delegate_create=False,
                 meta=None, **kwargs):
        super().__init__(
            id=id, address=address,
            network=Network(**network) if network else None,
            type=type, details=details or {}, devname=devname,
            ovs_interfaceid=ovs_interfaceid, qbh_params=qbh_params,
            qbg_params=qbg_params, active=active, vnic_type=vnic_type,
            profile=profile or {}, preserve_on_delete=preserve_on_delete,
            delegate_create=delegate_create, meta=meta or {}, **kwargs)

    def fixed_ips(self):
        if not self.get('network'):
            return []
        return [ip for subnet in self['network']['subnets']
                for ip in subnet['ips']]

    def has_bind_time_event(self, migration=None):
        return False


class NetworkInfo(list):
    """The VIFs of one server."""

    def __init__(self, vifs=()):
        super().__init__(v if isinstance(v, VIF) else VIF(**v)
                         for v in vifs)

    @classmethod
    def hydrate(cls, value):
        if value is None:
            return cls()
        if isinstance(value, (str, bytes)):
            value = jsonutils.loads(value) if value else []
        return cls(value)

    def json(self):
        return jsonutils.dumps(self)

    def fixed_ips(self):
        return [ip for vif in self for ip in vif.fixed_ips()]

    def wait(self, do_raise=True):
        """Nova's async network info is already complete here."""
        return self
