"""Base classes of every versioned object, and their RPC serializer.

Objects are oslo.versionedobjects classes in the ``nova`` namespace, so a
primitive produced here has the same shape (``nova_object.name``,
``.version``, ``.data``, ``.changes``) as one produced by Nova.  In
nova-compute the indirection API is the conductor RPC API and
``@remotable`` methods run in the conductor instead of locally.

The indirection API is chosen per service, not per process:
``NovaObject.indirection_api`` reads the value set for the current
execution context (``indirection_api_context``), falling back to the
process-wide default (``set_indirection_api``).  A one-process cloud can
so send its computes' object calls to the conductor while the conductor,
scheduler and API threads of the same process keep direct database access.
"""

import contextlib
import contextvars
import datetime
import functools
import traceback

from oslo_log import log as logging
from oslo_utils import versionutils
from oslo_versionedobjects import base as ovoo_base
from oslo_versionedobjects import exception as ovoo_exc
from oslo_versionedobjects import fields as ovoo_fields

from nova_clone import exception
from nova_clone.objects import fields as obj_fields

LOG = logging.getLogger(__name__)

remotable = ovoo_base.remotable
remotable_classmethod = ovoo_base.remotable_classmethod
obj_make_list = ovoo_base.obj_make_list


_UNSET = object()
# The process-wide default (nova-compute sets the conductor API here).
_process_indirection_api = None
# Set around the work of one service; _UNSET means "use the default".
_context_indirection_api = contextvars.ContextVar(
    'nova_clone_indirection_api', default=_UNSET)


def set_indirection_api(api):
    """Set the process-wide indirection API (None: direct DB access)."""
    global _process_indirection_api
    _process_indirection_api = api


def get_indirection_api():
    """The indirection API in effect for the current context."""
    api = _context_indirection_api.get()
    return _process_indirection_api if api is _UNSET else api


@contextlib.contextmanager
def indirection_api_context(api):
    """Run the block with ``api`` as the indirection API (None: direct),
    whatever the process-wide default is."""
    token = _context_indirection_api.set(api)
    try:
        yield
    finally:
        _context_indirection_api.reset(token)


def run_with_indirection_api(api, func, *args, **kwargs):
    """Call ``func`` with ``api`` as the indirection API."""
    with indirection_api_context(api):
        return func(*args, **kwargs)


class _IndirectionAPIAttribute:
    """``indirection_api`` of every object class and instance.

    oslo.versionedobjects reads ``self.indirection_api`` and
    ``cls.indirection_api``; both land here.  No ``__set__``: assigning
    the class attribute replaces this lookup with a fixed value, which is
    what tests that patch the attribute expect.
    """

    def __get__(self, obj, owner=None):
        return get_indirection_api()


def get_attrname(name):
    """The attribute that holds field ``name``'s value on an object."""
    return ovoo_base._get_attrname(name)


# Field types whose coercion, from_primitive and to_primitive leave a
# value of this exact type unchanged.
_UNCHANGED = {
    ovoo_fields.String: str,
    ovoo_fields.UUID: str,
    ovoo_fields.Integer: int,
    ovoo_fields.Boolean: bool,
    ovoo_fields.Float: float,
}
# A timezone-aware DateTime field: coercion only adds UTC to a naive one.
_TZ_DATETIME = object()


@functools.lru_cache(maxsize=None)
def _field_kinds(cls):
    """{field name: (field, kind, attribute holding its value)} of an
    object class; kind is the type kept unchanged, _TZ_DATETIME, or None
    (always through the field)."""
    kinds = {}
    for name, field in cls.fields.items():
        kind = _UNCHANGED.get(type(field._type))
        if (isinstance(field._type, ovoo_fields.DateTime) and
                field._type.tzinfo_aware):
            kind = _TZ_DATETIME
        kinds[name] = (field, kind, '_obj_' + name)
    return kinds


def set_stored_fields(obj, values, names, from_primitive=False):
    """Set fields ``names`` of ``obj`` from ``values`` (a mapping): a row
    read back from our own database or, ``from_primitive``, a primitive's
    data.

    A value that already has its field's type is stored as it is (a naive
    datetime gets UTC, as coercion gives it): the field would return it
    unchanged, and that round is most of the cost of reading a long list
    or an object RPC's arguments.  Any other value goes through the field
    (its from_primitive first for a primitive).  Changes are not tracked:
    callers reset or set them afterwards.
    """
    kinds = _field_kinds(type(obj))
    utc = datetime.timezone.utc
    stored = obj.__dict__
    for name in names:
        field, kind, attr = kinds[name]
        value = values[name]
        if value is None:
            if field.nullable:
                stored[attr] = None
                continue
        elif kind is _TZ_DATETIME:
            if type(value) is datetime.datetime:
                if value.tzinfo is None:
                    value = value.replace(tzinfo=utc)
                stored[attr] = value
                continue
        elif type(value) is kind:
            stored[attr] = value
            continue
        if from_primitive:
            value = field.from_primitive(obj, name, value)
        setattr(obj, name, value)


class NovaObjectRegistry(ovoo_base.VersionedObjectRegistry):
    """Registers objects and publishes the newest version of each class
    as an attribute of the ``nova_clone.objects`` package
    (``objects.Instance``)."""

    notification_classes = []

    def registration_hook(self, cls, index):
        from nova_clone import objects as package
        version = versionutils.convert_version_to_tuple(cls.VERSION)
        current = getattr(package, cls.obj_name(), None)
        if current is None or version >= versionutils.convert_version_to_tuple(
                current.VERSION):
            setattr(package, cls.obj_name(), cls)

    @classmethod
    def register_notification(cls, notification_cls):
        """Register a notification payload class (kept apart so that the
        object-hash tests can tell them from data objects)."""
        cls.register_if(False)(notification_cls)
        cls.notification_classes.append(notification_cls)
        return notification_cls

    @classmethod
    def register_notification_objects(cls):
        for notification_cls in cls.notification_classes:
            cls.register(notification_cls)


class NovaObject(ovoo_base.VersionedObject):
    """Base of all nova-clone versioned objects."""

    OBJ_SERIAL_NAMESPACE = 'nova_object'
    OBJ_PROJECT_NAMESPACE = 'nova'

    indirection_api = _IndirectionAPIAttribute()

    # Computed, read-only attributes (such as Instance.name) that dict-style
    # access and obj_to_primitive() expose next to the fields.
    obj_extra_fields = []

    def obj_attr_is_set(self, attrname):
        # oslo's answer, without the list of every field name it builds
        # per call: this runs hundreds of times per object RPC.
        if attrname in self.fields or attrname in self.obj_extra_fields:
            return hasattr(self, '_obj_' + attrname)
        return super().obj_attr_is_set(attrname)

    def obj_what_changed(self):
        # oslo's rule (changed fields, and set fields holding an object
        # with changes) reading the stored values directly, not through
        # each field's property.
        changes = {name for name in self._changed_fields
                   if name in self.fields}
        stored = self.__dict__
        for name in self.fields:
            value = stored.get('_obj_' + name)
            if (isinstance(value, ovoo_base.VersionedObject) and
                    value.obj_what_changed()):
                changes.add(name)
        return changes

    def obj_to_primitive(self, target_version=None, version_manifest=None):
        if target_version not in (None, self.VERSION) or version_manifest:
            return super().obj_to_primitive(target_version, version_manifest)
        # oslo's dehydration at the object's own version, reading the
        # stored values directly; a value its field passes through as it
        # is (None, a str of a string field...) skips to_primitive.
        stored = self.__dict__
        data = {}
        for name, (field, kind, attr) in _field_kinds(type(self)).items():
            value = stored.get(attr, _UNSET)
            if value is _UNSET:
                continue
            if value is None or type(value) is kind:
                data[name] = value
            else:
                data[name] = field.to_primitive(self, name, value)
        primitive = {
            self._obj_primitive_key('name'): self.obj_name(),
            self._obj_primitive_key('namespace'): self.OBJ_PROJECT_NAMESPACE,
            self._obj_primitive_key('version'): self.VERSION,
            self._obj_primitive_key('data'): data,
        }
        changes = [name for name in self.obj_what_changed() if name in data]
        if changes:
            primitive[self._obj_primitive_key('changes')] = changes
        return primitive

    @classmethod
    def _obj_from_primitive(cls, context, objver, primitive):
        # oslo's hydration, except that a value its field would keep as it
        # is (a str for a string field...) is stored without a round of
        # from_primitive and coercion: most of the cost of an object RPC's
        # arguments.
        self = cls()
        self._context = context
        self.VERSION = objver
        data = cls._obj_primitive_field(primitive, 'data')
        changes = cls._obj_primitive_field(primitive, 'changes', [])
        set_stored_fields(self, data,
                          [name for name in data if name in cls.fields],
                          from_primitive=True)
        self._changed_fields = {name for name in changes
                                if name in cls.fields}
        return self

    @contextlib.contextmanager
    def obj_alternate_context(self, context):
        """Use ``context`` for the duration of the block."""
        original = self._context
        self._context = context
        try:
            yield
        finally:
            self._context = original

    @contextlib.contextmanager
    def obj_as_admin(self):
        """Run the block with an elevated copy of the object's context."""
        if self._context is None:
            raise exception.OrphanedObjectError(method='obj_as_admin',
                                                objtype=self.obj_name())
        original = self._context
        self._context = original.elevated()
        try:
            yield
        finally:
            self._context = original


class NovaObjectDictCompat(ovoo_base.VersionedObjectDictCompat):
    """Lets old code read an object like a dict (``obj['name']``)."""

    def __iter__(self):
        for name in self.obj_fields:
            if (self.obj_attr_is_set(name) or
                    name in self.obj_extra_fields):
                yield name

    def keys(self):
        return list(self)


class NovaTimestampObject:
    """Mixin: created_at and updated_at."""

    fields = {
        'created_at': obj_fields.DateTimeField(nullable=True),
        'updated_at': obj_fields.DateTimeField(nullable=True),
    }


class NovaPersistentObject:
    """Mixin: the timestamp and soft-delete columns of a cell table."""

    fields = {
        'created_at': obj_fields.DateTimeField(nullable=True),
        'updated_at': obj_fields.DateTimeField(nullable=True),
        'deleted_at': obj_fields.DateTimeField(nullable=True),
        'deleted': obj_fields.BooleanField(default=False),
    }


class ObjectListBase(ovoo_base.ObjectListBase):
    """A list of objects; ``objects`` holds the items."""

    # Nova lists keep the history of their item versions here; the items'
    # own versions are enough for us, so no mapping is needed.
    child_versions = {}


def _exception_to_primitive(exc):
    return {'nova_exception.class': '%s.%s' % (type(exc).__module__,
                                               type(exc).__name__),
            'nova_exception.message': str(exc),
            'nova_exception.kwargs': {
                k: v for k, v in getattr(exc, 'kwargs', {}).items()
                if isinstance(v, (str, int, float, bool, type(None)))}}


def _exception_from_primitive(primitive):
    path = primitive.get('nova_exception.class', '')
    message = primitive.get('nova_exception.message', '')
    kwargs = dict(primitive.get('nova_exception.kwargs') or {})
    module_name, _, name = path.rpartition('.')
    # Only rebuild our own exception classes; anything else comes back as
    # a NovaException with the same message rather than being imported.
    if module_name == 'nova_clone.exception':
        cls = getattr(exception, name, None)
        if isinstance(cls, type) and issubclass(cls, exception.NovaException):
            try:
                exc = cls(message=message, **kwargs)
            except Exception:
                exc = cls(message=message)
            return exc
    return exception.NovaException(message=message)


class NovaObjectSerializer(ovoo_base.VersionedObjectSerializer):
    """Turns objects (inside lists, tuples, sets and dicts, too) into
    primitives and back; an object too new for this side is backported by
    the conductor when indirection is in use.  Exceptions travel as a
    small dict and are rebuilt on the other side; everything else is left
    to oslo.messaging's JSON encoding (datetimes become strings)."""

    OBJ_BASE_CLASS = NovaObject

    def serialize_entity(self, context, entity):
        if isinstance(entity, BaseException):
            return _exception_to_primitive(entity)
        return super().serialize_entity(context, entity)

    def deserialize_entity(self, context, entity):
        if isinstance(entity, dict) and 'nova_exception.class' in entity:
            return _exception_from_primitive(entity)
        return super().deserialize_entity(context, entity)

    def _process_iterable(self, context, action_fn, values):
        # Keep dict keys as they are, keep tuples as tuples.
        if isinstance(values, tuple):
            return tuple(action_fn(context, value) for value in values)
        return super()._process_iterable(context, action_fn, values)


def obj_to_primitive(obj):
    """A plain-Python view of ``obj`` (objects become dicts of their set
    fields), for building API responses and notifications."""
    if isinstance(obj, ObjectListBase):
        return [obj_to_primitive(x) for x in obj]
    if isinstance(obj, NovaObject):
        result = {}
        for key in obj.obj_fields:
            if obj.obj_attr_is_set(key) or key in obj.obj_extra_fields:
                result[key] = obj_to_primitive(getattr(obj, key))
        return result
    if isinstance(obj, (list, tuple, set)):
        return [obj_to_primitive(x) for x in obj]
    if isinstance(obj, dict):
        return {k: obj_to_primitive(v) for k, v in obj.items()}
    return obj


def obj_equal_prims(obj_1, obj_2, ignore=None):
    """True if two objects serialize the same (ignoring ``changes`` and the
    fields named in ``ignore``)."""
    def strip(prim):
        if isinstance(prim, dict):
            return {k: strip(v) for k, v in prim.items()
                    if k != 'nova_object.changes' and
                    not (ignore and k in ignore)}
        if isinstance(prim, list):
            return [strip(v) for v in prim]
        return prim
    return strip(obj_1.obj_to_primitive()) == strip(obj_2.obj_to_primitive())


def serialize_args(fn):
    """Decorator: turn datetimes, exceptions and tracebacks in the arguments
    into strings, so a remotable method can send them over RPC.  Goes
    above ``@remotable_classmethod`` / ``@remotable``."""

    def to_string(key, value):
        if isinstance(value, datetime.datetime):
            return value.isoformat()
        if key == 'exc_tb' and value and not isinstance(value, str):
            return ''.join(traceback.format_tb(value))
        if key == 'exc_val' and value:
            return str(value)
        return value

    def convert(args, kwargs):
        args = [to_string(None, a) for a in args]
        kwargs = {k: to_string(k, v) for k, v in kwargs.items()}
        return args, kwargs

    if isinstance(fn, classmethod):
        def class_wrapper(cls, *args, **kwargs):
            args, kwargs = convert(args, kwargs)
            return fn.__get__(None, cls)(*args, **kwargs)
        class_wrapper.remotable = getattr(fn.__func__, 'remotable', False)
        class_wrapper.original_fn = fn
        functools.update_wrapper(class_wrapper, fn.__func__)
        return classmethod(class_wrapper)

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        args, kwargs = convert(args, kwargs)
        return fn(self, *args, **kwargs)
    wrapper.remotable = getattr(fn, 'remotable', False)
    wrapper.original_fn = fn
    return wrapper


IncompatibleObjectVersion = ovoo_exc.IncompatibleObjectVersion
