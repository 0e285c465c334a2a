"""JSON-Schema validation of request bodies and query strings, per
microversion range, with Nova's error messages."""

import functools

import jsonschema
from jsonschema import validators
from oslo_utils import uuidutils
import webob

from nova_clone.api import microversion
from nova_clone import exception

_FORMAT_CHECKER = jsonschema.FormatChecker()


@_FORMAT_CHECKER.checks('uuid')
def _is_uuid(value):
    if not isinstance(value, str):
        return True
    return uuidutils.is_uuid_like(value)


@_FORMAT_CHECKER.checks('uuid-strict', raises=ValueError)
def _is_uuid_strict(value):
    if not isinstance(value, str):
        return True
    if not uuidutils.is_uuid_like(value) or len(value) != 36:
        raise ValueError('%s is not a valid UUID' % value)
    return True


@_FORMAT_CHECKER.checks('base64')
def _is_base64(value):
    import base64
    import binascii
    if not isinstance(value, str):
        return True
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


@_FORMAT_CHECKER.checks('date-time')
def _is_date_time(value):
    from oslo_utils import timeutils
    if not isinstance(value, str):
        return True
    try:
        timeutils.parse_isotime(value)
    except ValueError:
        return False
    return True


@_FORMAT_CHECKER.checks('ipv4')
def _is_ipv4(value):
    import netaddr
    if not isinstance(value, str):
        return True
    return netaddr.valid_ipv4(value, netaddr.INET_PTON)


@_FORMAT_CHECKER.checks('ipv6')
def _is_ipv6(value):
    import netaddr
    if not isinstance(value, str):
        return True
    return netaddr.valid_ipv6(value)


class InvalidName(ValueError):
    """A name-like value failed its format; its message is the answer."""


def _name_checker(fmt, allow_spaces, describe, charset=None):
    @_FORMAT_CHECKER.checks(fmt, raises=InvalidName)
    def check(value):
        if not isinstance(value, str):
            return True
        ok = value.isprintable() if charset is None else all(
            c in charset for c in value)
        if ok and not allow_spaces and value != value.strip():
            ok = False
        if not ok:
            raise InvalidName("An invalid 'name' value was provided. The "
                              "name must be: %s" % describe)
        return True
    return check


_name_checker('name', False, 'printable characters. Can not start or end '
              'with whitespace.')
_name_checker('name_with_leading_trailing_spaces', True,
              'printable characters with at least one non space character')
_KEYPAIR_20 = set('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'
                  '0123456789 _-')
_name_checker('keypair_name_20', True, 'printable characters. Can not start '
              'or end with whitespace.', charset=_KEYPAIR_20)
_name_checker('keypair_name_292', False, 'printable ascii characters. Can '
              'not start or end with whitespace.',
              charset=_KEYPAIR_20 | set('@.'))


@_FORMAT_CHECKER.checks('regex')
def _is_regex(value):
    import re
    if not isinstance(value, str):
        return True
    try:
        re.compile(value)
    except re.error:
        return False
    return True


_Validator = validators.Draft4Validator


def _check(schema, instance, is_body=True):
    validator = _Validator(schema, format_checker=_FORMAT_CHECKER)
    error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    if error is None:
        return
    if isinstance(error.cause, InvalidName):
        detail = str(error.cause)
    elif error.path:
        path = error.path.pop() if is_body else error.path.popleft()
        kind = 'field/attribute' if is_body else 'query parameters'
        detail = ('Invalid input for %(kind)s %(path)s. Value: %(value)s. '
                  '%(message)s' % {'kind': kind, 'path': path,
                                   'value': error.instance,
                                   'message': error.message})
    else:
        detail = error.message
    raise exception.ValidationError(detail=detail)


def _find_request(args):
    for arg in args:
        if isinstance(arg, webob.Request):
            return arg
    raise TypeError('no request among the arguments')


def validate_body(schema, body):
    _check(schema, body, is_body=True)


def schema(request_body_schema, min_version=None, max_version=None):
    """Validate ``body`` against the schema of the matching microversion.

    Stack several for different ranges; only the matching one is used.
    """
    def decorator(func):
        schemas = getattr(func, '_body_schemas', None)
        if schemas is None:
            inner = func

            @functools.wraps(inner)
            def wrapper(*args, body=None, **kwargs):
                req = _find_request(args)
                for sch, lo, hi in wrapper._body_schemas:
                    if microversion.is_supported(req, lo, hi):
                        _check(sch, body, is_body=True)
                        break
                return inner(*args, body=body, **kwargs)
            wrapper._body_schemas = []
            func = wrapper
        func._body_schemas.append(
            (request_body_schema, min_version, max_version))
        return func
    return decorator


def query_schema(query_params_schema, min_version=None, max_version=None):
    """Validate the query string (a dict of lists) like Nova does.

    Unknown parameters are dropped when the schema allows additional
    properties (older microversions) and rejected when it does not.
    """
    def decorator(func):
        if getattr(func, '_query_schemas', None) is None:
            inner = func

            @functools.wraps(inner)
            def wrapper(*args, **kwargs):
                req = _find_request(args)
                for sch, lo, hi in wrapper._query_schemas:
                    if microversion.is_supported(req, lo, hi):
                        query = req.GET.dict_of_lists()
                        _check(sch, query, is_body=False)
                        if sch.get('additionalProperties', True) is True:
                            _strip_unknown(req, sch)
                        break
                return inner(*args, **kwargs)
            wrapper._query_schemas = []
            func = wrapper
        func._query_schemas.append(
            (query_params_schema, min_version, max_version))
        return func
    return decorator


def _strip_unknown(req, sch):
    known = set(sch.get('properties', {}))
    patterns = sch.get('patternProperties', {})
    import re
    # A repeated parameter is one key of the multidict: delete it once.
    for key in set(req.GET.keys()):
        if key in known or any(re.match(p, key) for p in patterns):
            continue
        del req.GET[key]
