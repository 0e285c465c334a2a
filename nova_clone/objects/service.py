"""Service: one row of the services table per (host, binary).

The heartbeat of a running service lands here (``report_count``,
``last_seen_up``); operators disable or force a service down through it.
"""

from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_clone import availability_zones
from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields
from nova_clone import version

LOG = logging.getLogger(__name__)

# Written into services.version by every service of this release.
SERVICE_VERSION = version.SERVICE_VERSION

# Minimum service versions seen per binary, cached until reset (SIGHUP).
_MIN_VERSION_CACHE = {}


# -- queries ----------------------------------------------------------------

@main_db_api.pick_context_manager_reader
def _service_get_all(context, disabled=None, **filters):
    query = queries.model_query(context, models.Service)
    if disabled is not None:
        query = query.filter(models.Service.disabled == disabled)
    for key, value in filters.items():
        query = query.filter(getattr(models.Service, key) == value)
    return query.order_by(models.Service.id).all()


def _service_create(context, values):
    try:
        return queries.create_row(context, models.Service,
                                  queries.naive_datetimes(values))
    except db_exc.DBDuplicateEntry as exc:
        if 'binary' in (exc.columns or []):
            raise exception.ServiceBinaryExists(host=values.get('host'),
                                                binary=values.get('binary'))
        raise exception.ServiceTopicExists(host=values.get('host'),
                                           topic=values.get('topic'))


def _stamp_heartbeat(row, values):
    queries.naive_datetimes(values)
    if values.get('report_count', 0) > (row.report_count or 0):
        # A heartbeat: stamp it with the database side's clock.
        row.last_seen_up = timeutils.utcnow()


@queries.writer
def _service_destroy(context, service_id):
    row = queries.model_query(context, models.Service).filter_by(
        id=service_id).first()
    if row is None:
        raise exception.ServiceNotFound(service_id=service_id)
    row.soft_delete(context.session)
    if row.binary == 'nova-compute':
        # Its compute nodes go with it (and may be re-created on restart).
        nodes = queries.model_query(context, models.ComputeNode).filter_by(
            host=row.host)
        queries.soft_delete(nodes, models.ComputeNode)


@main_db_api.pick_context_manager_reader
def _min_versions(context, binaries):
    query = queries.model_query(
        context, models.Service, models.Service.binary,
        models.Service.version).filter(
            models.Service.binary.in_(binaries),
            models.Service.forced_down.is_(False) |
            models.Service.forced_down.is_(None))
    found = {}
    for binary, ver in query:
        ver = ver or 0
        found[binary] = min(found.get(binary, ver), ver)
    return found


def _set_zones(services):
    """Fill availability_zone from the host aggregates."""
    if services:
        availability_zones.set_availability_zones(services[0]._context,
                                                  services)
    return services


# -- objects ----------------------------------------------------------------

@base.NovaObjectRegistry.register
class Service(base.NovaPersistentObject, base.NovaObject,
              base.NovaObjectDictCompat):
    VERSION = '1.22'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'host': fields.StringField(nullable=True),
        'binary': fields.StringField(nullable=True),
        'topic': fields.StringField(nullable=True),
        'report_count': fields.IntegerField(),
        'disabled': fields.BooleanField(),
        'disabled_reason': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'last_seen_up': fields.DateTimeField(nullable=True),
        'forced_down': fields.BooleanField(),
        'version': fields.IntegerField(),
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if 'version' not in self:
            self.version = SERVICE_VERSION

    @staticmethod
    def _from_db_object(context, service, db_service):
        for name in service.fields:
            if name == 'availability_zone':
                continue
            value = getattr(db_service, name)
            if name == 'uuid' and value is None:
                continue
            if name in ('disabled', 'forced_down'):
                value = bool(value)
            elif name in ('report_count', 'version'):
                value = value or 0
            setattr(service, name, value)
        service._context = context
        service.obj_reset_changes()
        return service

    def obj_load_attr(self, attrname):
        if not self._context:
            raise exception.OrphanedObjectError(method='obj_load_attr',
                                                objtype=self.obj_name())
        if attrname == 'availability_zone':
            _set_zones([self])
            self.obj_reset_changes(['availability_zone'])
            return
        if attrname == 'uuid':
            # Rows from before uuids were kept get one now.
            self.uuid = uuidutils.generate_uuid()
            self.save()
            return
        raise exception.ObjectActionError(
            action='obj_load_attr', reason='%s cannot be loaded' % attrname)

    @classmethod
    def _get(cls, context, filters, not_found=None):
        """The matching service; None if missing and no ``not_found``."""
        row = queries.get_row(context, models.Service, filters,
                              not_found=not_found)
        if row is None:
            return None
        return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def get_by_id(cls, context, service_id):
        return cls._get(context, {'id': service_id},
                        exception.ServiceNotFound(service_id=service_id))

    @base.remotable_classmethod
    def get_by_uuid(cls, context, service_uuid):
        return cls._get(context, {'uuid': service_uuid},
                        exception.ServiceNotFound(service_id=service_uuid))

    @base.remotable_classmethod
    def get_by_host_and_topic(cls, context, host, topic):
        return cls._get(context, {'host': host, 'topic': topic})

    @base.remotable_classmethod
    def get_by_host_and_binary(cls, context, host, binary):
        return cls._get(context, {'host': host, 'binary': binary})

    @base.remotable_classmethod
    def get_by_compute_host(cls, context, host, use_slave=False):
        return cls._get(context, {'host': host, 'binary': 'nova-compute'},
                        exception.ComputeHostNotFound(host=host))

    @base.remotable_classmethod
    def get_by_args(cls, context, host, binary):
        return cls._get(context, {'host': host, 'binary': binary},
                        exception.ServiceNotFound(
                            service_id='%s/%s' % (host, binary)))

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        updates = self.obj_get_changes()
        updates.pop('availability_zone', None)
        updates.setdefault('uuid', uuidutils.generate_uuid())
        updates.setdefault('version', SERVICE_VERSION)
        row = _service_create(self._context, updates)
        self._from_db_object(self._context, self, row)
        LOG.info('Registered service %s on host %s (id %s)', self.binary,
                 self.host, self.id)

    @base.remotable
    def save(self):
        updates = self.obj_get_changes()
        updates.pop('id', None)
        updates.pop('availability_zone', None)
        if not updates:
            return
        row = queries.update_row(
            self._context, models.Service, self.id, updates,
            exception.ServiceNotFound(service_id=self.id),
            prepare=_stamp_heartbeat)
        self._from_db_object(self._context, self, row)

    @base.remotable
    def destroy(self):
        _service_destroy(self._context, self.id)

    @classmethod
    def clear_min_version_cache(cls):
        _MIN_VERSION_CACHE.clear()

    @classmethod
    def get_minimum_version_multi(cls, context, binaries, use_slave=False):
        missing = [b for b in binaries if b not in _MIN_VERSION_CACHE]
        if missing:
            found = cls._db_minimum_versions(context, missing)
            _MIN_VERSION_CACHE.update({b: found.get(b, 0) for b in missing})
        return min(_MIN_VERSION_CACHE[b] for b in binaries) if binaries \
            else 0

    @base.remotable_classmethod
    def _db_minimum_versions(cls, context, binaries):
        return _min_versions(context, list(binaries))

    @classmethod
    def get_minimum_version(cls, context, binary, use_slave=False):
        return cls.get_minimum_version_multi(context, [binary])


def get_minimum_version_all_cells(context, binaries, require_all=False):
    """The oldest version of ``binaries`` across every cell."""
    from nova_clone import context as nova_context
    from nova_clone import objects
    cells = objects.CellMappingList.get_all(context)
    results = nova_context.scatter_gather_cells(
        context, cells, 60,
        lambda cctxt: _min_versions(cctxt, list(binaries)))
    versions = []
    for cell_uuid, result in results.items():
        if nova_context.is_cell_failure_sentinel(result):
            if require_all:
                raise exception.NovaException(
                    'Cell %s did not report service versions' % cell_uuid)
            continue
        versions.extend(result.values())
    return min(versions) if versions else 0


@base.NovaObjectRegistry.register
class ServiceList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.19'

    fields = {
        'objects': fields.ListOfObjectsField('Service'),
    }

    @base.remotable_classmethod
    def get_by_topic(cls, context, topic):
        rows = _service_get_all(context, topic=topic)
        return base.obj_make_list(context, cls(context), Service, rows)

    @base.remotable_classmethod
    def get_by_binary(cls, context, binary, include_disabled=False):
        rows = _service_get_all(
            context, disabled=None if include_disabled else False,
            binary=binary)
        return base.obj_make_list(context, cls(context), Service, rows)

    @base.remotable_classmethod
    def get_by_host(cls, context, host):
        rows = _service_get_all(context, host=host)
        return base.obj_make_list(context, cls(context), Service, rows)

    @base.remotable_classmethod
    def get_all(cls, context, disabled=None, set_zones=False):
        rows = _service_get_all(context, disabled=disabled)
        services = base.obj_make_list(context, cls(context), Service, rows)
        if set_zones:
            _set_zones(services.objects)
            for service in services:
                service.obj_reset_changes(['availability_zone'])
        return services

    @base.remotable_classmethod
    def get_all_computes_by_hv_type(cls, context, hv_type):
        nodes = _hosts_by_hv_type(context, hv_type)
        rows = [r for r in _service_get_all(context, binary='nova-compute',
                                            disabled=False)
                if r.host in nodes]
        return base.obj_make_list(context, cls(context), Service, rows)


@main_db_api.pick_context_manager_reader
def _hosts_by_hv_type(context, hv_type):
    rows = queries.model_query(context, models.ComputeNode,
                               models.ComputeNode.host).filter_by(
        hypervisor_type=hv_type)
    return {host for (host,) in rows}
