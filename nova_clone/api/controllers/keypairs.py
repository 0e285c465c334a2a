"""/os-keypairs: create (generate before 2.92) or import, list, show,
delete."""

import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import keypairs as schema
from nova_clone.api import ssh_keys
from nova_clone.api import validation
from nova_clone.api.views import keypairs as views
from nova_clone import exception
from nova_clone import objects
from nova_clone.policies import keypairs as kp_policies
from nova_clone import quota


def _target_user(req, context):
    user_id = None
    if microversion.is_supported(req, '2.10'):
        user_id = common.last_value(req, 'user_id')
    return user_id or context.user_id


class KeypairController(object):

    @validation.schema(schema.create_v292, '2.92')
    @validation.schema(schema.create_v210, '2.10', '2.91')
    @validation.schema(schema.create_v22, '2.2', '2.9')
    @validation.schema(schema.create, '2.1', '2.1')
    def create(self, req, body):
        context = auth.get_context(req)
        params = body['keypair']
        name = params['name']
        key_type = params.get('type', 'ssh')
        user_id = params.get('user_id') or context.user_id
        context.can(kp_policies.KEYPAIRS % 'create',
                    target={'user_id': user_id})
        if not microversion.is_supported(req, '2.92'):
            name = name.strip()
            if not name:
                raise common.bad_request(
                    'Keypair data is invalid: Keypair name must be string '
                    'and between 1 and 255 characters long')
        try:
            quota.check_keypairs(context, user_id)
        except exception.KeypairLimitExceeded:
            raise webob.exc.HTTPForbidden(
                explanation='Quota exceeded, too many key pairs.')
        private_key = None
        try:
            if 'public_key' in params:
                public_key = params['public_key']
                fingerprint = ssh_keys.fingerprint(public_key, key_type)
            else:
                if key_type == 'x509':
                    private_key, public_key, fingerprint = (
                        ssh_keys.generate_x509_pair(user_id))
                else:
                    private_key, public_key, fingerprint = (
                        ssh_keys.generate_key_pair())
        except exception.InvalidKeypair as exc:
            raise common.bad_request(exc.format_message())
        keypair = objects.KeyPair(context=context, name=name,
                                  user_id=user_id, public_key=public_key,
                                  fingerprint=fingerprint, type=key_type)
        try:
            keypair.create()
        except exception.KeyPairExists as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        code = 201 if microversion.is_supported(req, '2.2') else 200
        return resource.ResponseObject(
            views.create(keypair, private_key,
                         with_type=microversion.is_supported(req, '2.2')),
            code=code)

    @validation.query_schema(schema.index_query_v275, '2.75')
    @validation.query_schema(schema.index_query_v235, '2.35', '2.74')
    @validation.query_schema(schema.index_query_v210, '2.10', '2.34')
    @validation.query_schema(schema.index_query, '2.1', '2.9')
    def index(self, req):
        context = auth.get_context(req)
        user_id = _target_user(req, context)
        context.can(kp_policies.KEYPAIRS % 'index',
                    target={'user_id': user_id})
        limit = marker = None
        if microversion.is_supported(req, '2.35'):
            limit, marker = common.get_limit_and_marker(req)
            if common.last_value(req, 'limit') is None:
                limit = None
        try:
            keypairs = objects.KeyPairList.get_by_user(
                context, user_id, limit=limit, marker=marker)
        except exception.MarkerNotFound as exc:
            raise common.bad_request(exc.format_message())
        return views.index(req, list(keypairs),
                           with_type=microversion.is_supported(req, '2.2'),
                           limit=limit)

    @validation.query_schema(schema.show_query_v275, '2.75')
    @validation.query_schema(schema.show_query_v210, '2.10', '2.74')
    @validation.query_schema(schema.show_query, '2.1', '2.9')
    def show(self, req, name):
        context = auth.get_context(req)
        user_id = _target_user(req, context)
        context.can(kp_policies.KEYPAIRS % 'show',
                    target={'user_id': user_id})
        try:
            keypair = objects.KeyPair.get_by_name(context, user_id, name)
        except exception.KeypairNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        return views.show(keypair,
                          with_type=microversion.is_supported(req, '2.2'))

    @validation.query_schema(schema.show_query_v275, '2.75')
    @validation.query_schema(schema.show_query_v210, '2.10', '2.74')
    @validation.query_schema(schema.show_query, '2.1', '2.9')
    def delete(self, req, name):
        context = auth.get_context(req)
        user_id = _target_user(req, context)
        context.can(kp_policies.KEYPAIRS % 'delete',
                    target={'user_id': user_id})
        try:
            objects.KeyPair.destroy_by_name(context, user_id, name)
        except exception.KeypairNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        code = 204 if microversion.is_supported(req, '2.2') else 202
        return resource.ResponseObject(None, code=code)
