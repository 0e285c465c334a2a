"""RequestSpec: everything the scheduler needs to place one request.

Stored in the API database (``request_specs.spec``) as a serialized
versioned object, so resize, migrate, evacuate and unshelve can schedule
the instance again with its original constraints.
"""

from oslo_serialization import jsonutils

from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields
from nova_clone.objects import image_meta as image_meta_obj

# Fields that describe one scheduling attempt and are not persisted.
_NOT_PERSISTED = ('ignore_hosts', 'retry', 'requested_resources',
                  'requested_networks', 'id')


@base.NovaObjectRegistry.register
class SchedulerLimits(base.NovaObject):
    VERSION = '1.0'

    fields = {
        'numa_topology': fields.ObjectField('NUMATopologyLimits',
                                            nullable=True, default=None),
        'vcpu': fields.IntegerField(nullable=True, default=None),
        'disk_gb': fields.IntegerField(nullable=True, default=None),
        'memory_mb': fields.IntegerField(nullable=True, default=None),
    }

    @classmethod
    def from_dict(cls, limits_dict):
        limits = cls(**{k: v for k, v in (limits_dict or {}).items()
                        if k in cls.fields and k != 'numa_topology'})
        limits.obj_set_defaults()
        return limits

    def to_dict(self):
        return {name: getattr(self, name) for name in self.fields
                if name != 'numa_topology' and self.obj_attr_is_set(name)
                and getattr(self, name) is not None}


@base.NovaObjectRegistry.register
class SchedulerRetries(base.NovaObject):
    VERSION = '1.1'

    fields = {
        'num_attempts': fields.IntegerField(),
        'hosts': fields.ObjectField('ComputeNodeList'),
    }


@base.NovaObjectRegistry.register
class Destination(base.NovaObject):
    """Where an operator asked the server to go (host/node/cell)."""
    VERSION = '1.4'

    fields = {
        'host': fields.StringField(),
        'node': fields.StringField(nullable=True),
        'cell': fields.ObjectField('CellMapping', nullable=True),
        'aggregates': fields.ListOfStringsField(nullable=True,
                                                default=None),
        'allow_cross_cell_move': fields.BooleanField(default=False),
        'forbidden_aggregates': fields.SetOfStringsField(nullable=True,
                                                         default=None),
    }

    def require_aggregates(self, aggregates):
        self.aggregates = list(self.aggregates or []) + [
            ','.join(aggregates)]

    def append_forbidden_aggregates(self, forbidden_aggregates):
        self.forbidden_aggregates = set(self.forbidden_aggregates or
                                        set()) | set(forbidden_aggregates)


@base.NovaObjectRegistry.register
class NetworkMetadata(base.NovaObject):
    VERSION = '1.0'

    fields = {
        'physnets': fields.SetOfStringsField(),
        'tunneled': fields.BooleanField(),
    }


@base.NovaObjectRegistry.register
class RequestGroup(base.NovaObject):
    """One group of resources/traits for a Placement query."""
    VERSION = '1.3'

    fields = {
        'use_same_provider': fields.BooleanField(default=True),
        'resources': fields.DictOfIntegersField(default={}),
        'required_traits': fields.SetOfStringsField(default=set()),
        'forbidden_traits': fields.SetOfStringsField(default=set()),
        'aggregates': fields.ListOfListsOfStringsField(default=[]),
        'forbidden_aggregates': fields.SetOfStringsField(default=set()),
        'requester_id': fields.StringField(nullable=True, default=None),
        'provider_uuids': fields.ListOfUUIDField(default=[]),
        'in_tree': fields.UUIDField(nullable=True, default=None),
    }

    def __init__(self, context=None, **kwargs):
        super().__init__(context=context, **kwargs)
        self.obj_set_defaults()


@base.NovaObjectRegistry.register
class RequestLevelParams(base.NovaObject):
    """Placement query parameters that apply to the whole request."""
    VERSION = '1.1'

    fields = {
        'root_required': fields.SetOfStringsField(default=set()),
        'root_forbidden': fields.SetOfStringsField(default=set()),
        'same_subtree': fields.ListOfListsOfStringsField(default=[]),
    }

    def __init__(self, context=None, **kwargs):
        super().__init__(context=context, **kwargs)
        self.obj_set_defaults()


@base.NovaObjectRegistry.register
class RequestSpec(base.NovaObject):
    VERSION = '1.14'

    fields = {
        'id': fields.IntegerField(),
        'image': fields.ObjectField('ImageMeta', nullable=True),
        'numa_topology': fields.ObjectField('InstanceNUMATopology',
                                            nullable=True),
        'pci_requests': fields.ObjectField('InstancePCIRequests',
                                           nullable=True),
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('Flavor', nullable=False),
        'num_instances': fields.IntegerField(default=1),
        'ignore_hosts': fields.ListOfStringsField(nullable=True),
        'force_hosts': fields.ListOfStringsField(nullable=True),
        'force_nodes': fields.ListOfStringsField(nullable=True),
        'requested_destination': fields.ObjectField('Destination',
                                                    nullable=True,
                                                    default=None),
        'retry': fields.ObjectField('SchedulerRetries', nullable=True),
        'limits': fields.ObjectField('SchedulerLimits', nullable=True),
        'instance_group': fields.ObjectField('InstanceGroup',
                                             nullable=True),
        'scheduler_hints': fields.DictOfListOfStringsField(nullable=True),
        'instance_uuid': fields.UUIDField(),
        'security_groups': fields.ListOfStringsField(nullable=True),
        'network_metadata': fields.ObjectField('NetworkMetadata'),
        'is_bfv': fields.BooleanField(),
        'requested_resources': fields.ListOfObjectsField('RequestGroup',
                                                         nullable=True,
                                                         default=None),
        'request_level_params': fields.ObjectField('RequestLevelParams'),
        # Requested networks of a boot; never stored.
        'requested_networks': fields.JsonField(nullable=True),
    }

    # -- helpers the scheduler and conductor use ---------------------------

    @property
    def vcpus(self):
        return self.flavor.vcpus

    @property
    def memory_mb(self):
        return self.flavor.memory_mb

    @property
    def root_gb(self):
        return self.flavor.root_gb

    @property
    def ephemeral_gb(self):
        return self.flavor.ephemeral_gb

    @property
    def swap(self):
        return self.flavor.swap

    @property
    def root_required(self):
        return (self.request_level_params.root_required
                if 'request_level_params' in self else set())

    @property
    def root_forbidden(self):
        return (self.request_level_params.root_forbidden
                if 'request_level_params' in self else set())

    @property
    def same_subtree(self):
        return (self.request_level_params.same_subtree
                if 'request_level_params' in self else [])

    def get_scheduler_hint(self, hint_name, default=None):
        """A hint's value: a one-item list comes back as the item."""
        if not self.obj_attr_is_set('scheduler_hints') or (
                self.scheduler_hints is None):
            return default
        value = self.scheduler_hints.get(hint_name, default)
        if isinstance(value, list) and len(value) == 1:
            return value[0]
        return value

    def reset_forced_destinations(self):
        """Forget forced hosts/nodes (they apply to the first boot only)."""
        self.force_hosts = None
        self.force_nodes = None

    def ensure_project_and_user_id(self, instance):
        if 'project_id' not in self or self.project_id is None:
            self.project_id = instance.project_id
        if 'user_id' not in self or self.user_id is None:
            self.user_id = instance.user_id

    def ensure_network_information(self, requested_networks=None):
        if 'network_metadata' not in self:
            self.network_metadata = NetworkMetadata(physnets=set(),
                                                    tunneled=False)

    def obj_load_attr(self, attrname):
        # Defaults for fields that specs written before they existed lack.
        defaults = {
            'network_metadata': lambda: NetworkMetadata(physnets=set(),
                                                        tunneled=False),
            'is_bfv': lambda: False,
            'request_level_params': RequestLevelParams,
            'requested_resources': lambda: None,
            'requested_networks': lambda: None,
            'requested_destination': lambda: None,
            'instance_group': lambda: None,
            'scheduler_hints': lambda: {},
            'ignore_hosts': lambda: None,
            'force_hosts': lambda: None,
            'force_nodes': lambda: None,
            'retry': lambda: None,
            'limits': lambda: None,
            'security_groups': lambda: [],
            'availability_zone': lambda: None,
            'numa_topology': lambda: None,
            'pci_requests': lambda: None,
            'num_instances': lambda: 1,
        }
        if attrname not in defaults:
            raise exception.ObjectActionError(
                action='obj_load_attr',
                reason='attribute %s not lazy-loadable' % attrname)
        setattr(self, attrname, defaults[attrname]())
        self.obj_reset_changes([attrname])

    @classmethod
    def from_components(cls, context, instance_uuid, image, flavor,
                        numa_topology, pci_requests, filter_properties,
                        instance_group, availability_zone,
                        security_groups=None, project_id=None,
                        user_id=None, port_resource_requests=None,
                        request_level_params=None):
        """Build a spec from the pieces the compute API has at boot."""
        spec = cls(context)
        spec.instance_uuid = instance_uuid
        spec.num_instances = 1
        if image is not None and not isinstance(image,
                                                image_meta_obj.ImageMeta):
            image = image_meta_obj.ImageMeta.from_dict(image)
        spec.image = image
        spec.flavor = flavor
        spec.numa_topology = numa_topology
        spec.pci_requests = pci_requests
        spec.instance_group = instance_group
        spec.availability_zone = availability_zone
        spec.project_id = project_id or context.project_id
        spec.user_id = user_id or context.user_id
        spec.security_groups = list(security_groups or [])
        filter_properties = filter_properties or {}
        hints = filter_properties.get('scheduler_hints') or {}
        spec.scheduler_hints = {
            k: [str(x) for x in (v if isinstance(v, list) else [v])]
            for k, v in hints.items()}
        spec.force_hosts = _as_list(filter_properties.get('force_hosts'))
        spec.force_nodes = _as_list(filter_properties.get('force_nodes'))
        spec.ignore_hosts = _as_list(filter_properties.get('ignore_hosts'))
        spec.retry = None
        spec.limits = None
        spec.requested_destination = None
        spec.requested_resources = list(port_resource_requests or [])
        spec.request_level_params = (request_level_params or
                                     RequestLevelParams())
        spec.network_metadata = NetworkMetadata(physnets=set(),
                                                tunneled=False)
        spec.is_bfv = False
        spec.requested_networks = None
        return spec

    def to_legacy_filter_properties_dict(self):
        props = {}
        if self.obj_attr_is_set('scheduler_hints') and self.scheduler_hints:
            props['scheduler_hints'] = dict(self.scheduler_hints)
        for name in ('force_hosts', 'force_nodes', 'ignore_hosts'):
            if self.obj_attr_is_set(name) and getattr(self, name):
                props[name] = list(getattr(self, name))
        if self.obj_attr_is_set('limits') and self.limits:
            props['limits'] = self.limits.to_dict()
        if self.obj_attr_is_set('retry') and self.retry:
            props['retry'] = {'num_attempts': self.retry.num_attempts,
                              'hosts': []}
        return props

    # -- persistence -------------------------------------------------------

    def _spec_for_storage(self):
        if self.obj_attr_is_set('instance_group') and self.instance_group:
            spec = self.obj_clone()
            # Members and hosts change all the time; reload on use.
            group = spec.instance_group
            for name in ('members', 'hosts'):
                if name in group.fields and group.obj_attr_is_set(name):
                    setattr(group, name, None)
        else:
            spec = self
        # The primitive of the spec less the fields never stored: what a
        # clone without them would give, without copying the spec.
        primitive = spec.obj_to_primitive()
        data = primitive['nova_object.data']
        for name in _NOT_PERSISTED:
            data.pop(name, None)
        changes = primitive.pop('nova_object.changes', None)
        changes = [name for name in changes or () if name in data]
        if changes:
            primitive['nova_object.changes'] = changes
        return jsonutils.dumps(primitive)

    @staticmethod
    def _from_db_object(context, spec, db_spec):
        primitive = jsonutils.loads(db_spec['spec'])
        loaded = RequestSpec.obj_from_primitive(primitive)
        for name in spec.fields:
            if name == 'id' or not loaded.obj_attr_is_set(name):
                continue
            setattr(spec, name, getattr(loaded, name))
        spec.id = db_spec['id']
        spec._context = context
        spec.obj_reset_changes(recursive=True)
        return spec

    @staticmethod
    @api_db_api.context_manager.reader
    def _get_by_instance_uuid_from_db(context, instance_uuid):
        db_spec = context.session.query(api_models.RequestSpec).filter_by(
            instance_uuid=instance_uuid).first()
        if not db_spec:
            raise exception.RequestSpecNotFound(instance_uuid=instance_uuid)
        return {'id': db_spec.id, 'spec': db_spec.spec}

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        db_spec = cls._get_by_instance_uuid_from_db(context, instance_uuid)
        return cls._from_db_object(context, cls(), db_spec)

    @staticmethod
    @api_db_api.context_manager.reader
    def _get_by_instance_uuids_from_db(context, instance_uuids):
        model = api_models.RequestSpec
        return [{'id': row.id, 'spec': row.spec,
                 'instance_uuid': row.instance_uuid}
                for row in context.session.query(model).filter(
                    model.instance_uuid.in_(list(instance_uuids)))]

    @classmethod
    def get_by_instance_uuids(cls, context, instance_uuids):
        """{instance uuid: RequestSpec} of those instances that have one,
        read in one query (nova-api's server views; never over RPC)."""
        return {row['instance_uuid']: cls._from_db_object(context, cls(), row)
                for row in cls._get_by_instance_uuids_from_db(
                    context, instance_uuids)}

    @staticmethod
    def _create_in_db(context, instance_uuid, spec_text):
        return api_db_api.insert_row(
            context, api_models.RequestSpec,
            {'instance_uuid': instance_uuid, 'spec': spec_text},
            duplicate=exception.RequestSpecExists(
                instance_uuid=instance_uuid))['id']

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        self.id = self._create_in_db(self._context, self.instance_uuid,
                                     self._spec_for_storage())
        self.obj_reset_changes(recursive=True)

    @staticmethod
    @api_db_api.context_manager.writer
    def _save_in_db(context, instance_uuid, spec_text):
        result = context.session.query(api_models.RequestSpec).filter_by(
            instance_uuid=instance_uuid).update({'spec': spec_text})
        if not result:
            raise exception.RequestSpecNotFound(instance_uuid=instance_uuid)

    @base.remotable
    def save(self):
        self._save_in_db(self._context, self.instance_uuid,
                         self._spec_for_storage())
        self.obj_reset_changes(recursive=True)

    @staticmethod
    @api_db_api.context_manager.writer
    def _destroy_in_db(context, instance_uuid):
        result = context.session.query(api_models.RequestSpec).filter_by(
            instance_uuid=instance_uuid).delete()
        if not result:
            raise exception.RequestSpecNotFound(instance_uuid=instance_uuid)

    @base.remotable
    def destroy(self):
        self._destroy_in_db(self._context, self.instance_uuid)

    @staticmethod
    @api_db_api.context_manager.writer
    def _destroy_bulk_in_db(context, instance_uuids):
        return context.session.query(api_models.RequestSpec).filter(
            api_models.RequestSpec.instance_uuid.in_(
                list(instance_uuids))).delete(synchronize_session=False)

    @classmethod
    def destroy_bulk(cls, context, instance_uuids):
        return cls._destroy_bulk_in_db(context, instance_uuids)


def _as_list(value):
    if value is None:
        return None
    if isinstance(value, (list, tuple, set)):
        return [str(v) for v in value]
    return [str(value)]


# What a server list shows of each request spec (2.96 and 2.100).
LIST_VIEW_FIELDS = ('availability_zone', 'scheduler_hints')


@api_db_api.context_manager.reader
def list_view_fields(context, instance_uuids):
    """{instance uuid: {field: value}} of LIST_VIEW_FIELDS, in one query.

    A list of hundreds of servers needs two plain values of each spec;
    building whole RequestSpec objects for them would cost more than the
    rest of the list.
    """
    out = {}
    model = api_models.RequestSpec
    for uuid, text in context.session.query(
            model.instance_uuid, model.spec).filter(
            model.instance_uuid.in_(list(instance_uuids))):
        data = jsonutils.loads(text).get('nova_object.data', {})
        out[uuid] = {name: data.get(name) for name in LIST_VIEW_FIELDS}
    return out
