"""The Placement report client: every call Nova's services make to Placement.

One class, ``SchedulerReportClient``, shaped like Nova's: the scheduler asks
for allocation candidates and claims; the conductor moves or removes
allocations; the compute's resource tracker keeps its provider tree (root
provider, inventories, traits, aggregates) in sync; the API deletes a
server's allocation and counts usages for quotas.
"""

import functools
import threading
import time

from keystoneauth1 import adapter as ks_adapter
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from oslo_log import log as logging

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.placement import provider_tree as ptree
from nova_clone.placement.provider_sync import ProviderSyncMixin

LOG = logging.getLogger(__name__)

# The oldest Placement microversion nova-clone needs (same_subtree etc.).
MIN_PLACEMENT_MICROVERSION = '1.36'
ALLOCATION_CANDIDATES_VERSION = '1.36'
CONSUMER_GENERATION_VERSION = '1.28'
GET_USAGES_VERSION = '1.9'
NESTED_PROVIDER_API_VERSION = '1.14'
POST_RPS_RETURNS_PAYLOAD_API_VERSION = '1.20'
AGGREGATE_GENERATION_VERSION = '1.19'
INVENTORY_RETURNS_VERSION = '1.26'
TRAITS_VERSION = '1.6'

# How often a write is retried after another writer bumped a generation.
GENERATION_CONFLICT_RETRIES = 4
_CONCURRENT_UPDATE = 'placement.concurrent_update'


def get_placement_adapter(conf=CONF):
    """A keystoneauth1 adapter for Placement from the [placement] group.

    With no auth plugin configured (embedded mode, Placement under
    noauth2) the adapter needs ``endpoint_override`` and sends the token
    noauth2 expects.
    """
    auth = ks_loading.load_auth_from_conf_options(conf, 'placement')
    headers = {}
    if auth is None:
        headers['X-Auth-Token'] = 'admin'
    sess = ks_loading.load_session_from_conf_options(
        conf, 'placement', auth=auth, additional_headers=headers)
    adapter = ks_loading.load_adapter_from_conf_options(
        conf, 'placement', session=sess, auth=auth, raise_exc=False)
    if conf.placement.connect_retries is None:
        # A kept-alive connection the server closed meanwhile fails once;
        # retrying is safe (the request never reached Placement).
        adapter.connect_retries = 3
    return adapter


def _connect_failure(reason):
    return exception.PlacementAPIConnectFailure(reason=reason)


def safe_connect(fn):
    """Turn keystoneauth1 connection errors into PlacementAPIConnectFailure
    with a message that says what to check."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ks_exc.EndpointNotFound as exc:
            raise _connect_failure(
                'no placement endpoint in the service catalog or '
                '[placement] endpoint_override (%s)' % exc) from exc
        except ks_exc.MissingAuthPlugin as exc:
            raise _connect_failure(
                'no auth plugin: set [placement] auth_type or '
                'endpoint_override (%s)' % exc) from exc
        except ks_exc.Unauthorized as exc:
            raise _connect_failure(
                'authentication refused: check the [placement] '
                'credentials (%s)' % exc) from exc
        except (ks_exc.ConnectFailure, ks_exc.ConnectTimeout,
                ks_exc.DiscoveryFailure) as exc:
            raise _connect_failure(
                'cannot connect (%s); check that Placement runs and '
                'that [placement] points at it' % exc) from exc
    return wrapper


def _error_code(resp):
    """Placement's machine-readable error code of a 4xx reply."""
    try:
        errors = resp.json().get('errors', [])
    except ValueError:
        return None
    return errors[0].get('code') if errors else None


class SchedulerReportClient(ProviderSyncMixin):
    """Client for the Placement API, shared by a whole service."""

    def __init__(self, adapter=None):
        self._adapter = adapter
        self._adapter_lock = threading.Lock()
        # Cache of the compute's providers, refreshed by the sync methods.
        self._provider_tree = ptree.ProviderTree()
        self._association_refresh_time = {}
        # (token, Placement URL from that token's catalog): see _endpoint.
        self._endpoint_cache = None

    # -- HTTP plumbing ----------------------------------------------------
    @property
    def _client(self):
        if self._adapter is None:
            with self._adapter_lock:
                if self._adapter is None:
                    self._adapter = get_placement_adapter()
        return self._adapter

    def _endpoint(self, adapter):
        """The Placement URL for one request, as endpoint_override kwargs.

        keystoneauth looks the endpoint up in the service catalog on every
        request, deep-copying the whole catalog each time; the answer only
        changes with the token, so it is looked up once per token.
        """
        if not isinstance(adapter, ks_adapter.Adapter) or \
                adapter.endpoint_override:
            return {}
        auth = adapter.auth or adapter.session.auth
        if auth is None:
            return {}
        cached = self._endpoint_cache
        token = getattr(auth, 'auth_ref', None)
        if token is None or cached is None or cached[0] is not token:
            url = adapter.get_endpoint()
            token = getattr(auth, 'auth_ref', None)
            if not url or token is None:
                return {}
            self._endpoint_cache = cached = (token, url)
        return {'endpoint_override': cached[1]}

    def _headers(self, context, version):
        headers = {'OpenStack-API-Version': 'placement %s' % version,
                   'Accept': 'application/json'}
        gri = getattr(context, 'global_id', None)
        if gri:
            headers['X-OpenStack-Request-ID'] = gri
        return headers

    @safe_connect
    def get(self, url, version=None, global_request_id=None, context=None):
        client = self._client
        return client.get(
            url, headers=self._headers(context, version or '1.0'),
            microversion=version or '1.0', **self._endpoint(client))

    @safe_connect
    def post(self, url, data, version=None, context=None):
        client = self._client
        return client.post(
            url, json=data, headers=self._headers(context, version or '1.0'),
            microversion=version or '1.0', **self._endpoint(client))

    @safe_connect
    def put(self, url, data, version=None, context=None):
        client = self._client
        kwargs = {'headers': self._headers(context, version or '1.0'),
                  'microversion': version or '1.0'}
        kwargs.update(self._endpoint(client))
        if data is not None:
            kwargs['json'] = data
        return client.put(url, **kwargs)

    @safe_connect
    def delete(self, url, version=None, context=None):
        client = self._client
        return client.delete(
            url, headers=self._headers(context, version or '1.0'),
            microversion=version or '1.0', **self._endpoint(client))

    # -- scheduling ---------------------------------------------------------
    def get_allocation_candidates(self, context, resource_request):
        """(allocation_requests, provider_summaries, version) for a request.

        ``resource_request`` is a scheduler.utils.ResourceRequest.  An
        empty answer is ``(None, None, None)``-free: lists may be empty.
        """
        qs = resource_request.to_querystring()
        url = '/allocation_candidates?%s' % qs
        for attempt in range(3):
            resp = self.get(url, version=ALLOCATION_CANDIDATES_VERSION,
                            context=context)
            if resp.status_code < 500:
                break
            time.sleep(0.05 * (attempt + 1))
        if resp.status_code == 200:
            data = resp.json()
            return (data['allocation_requests'], data['provider_summaries'],
                    ALLOCATION_CANDIDATES_VERSION)
        LOG.error('Failed to retrieve allocation candidates from placement '
                  'API for filters %(qs)s. Got %(code)d: %(text)s',
                  {'qs': qs, 'code': resp.status_code, 'text': resp.text})
        return [], {}, None

    def claim_resources(self, context, consumer_uuid, alloc_request,
                        project_id, user_id, allocation_request_version=None,
                        consumer_generation=None):
        """Claim one allocation candidate for a consumer; True on success.

        False when the resources are gone (someone else claimed them), so
        the caller tries another candidate.
        """
        payload = dict(alloc_request)
        payload['project_id'] = project_id
        payload['user_id'] = user_id
        payload['consumer_generation'] = consumer_generation
        return self._put_allocations_with_retry(
            context, consumer_uuid, payload,
            allocation_request_version or CONSUMER_GENERATION_VERSION)

    def _put_allocations_with_retry(self, context, consumer_uuid, payload,
                                    version):
        url = '/allocations/%s' % consumer_uuid
        for attempt in range(GENERATION_CONFLICT_RETRIES + 1):
            resp = self.put(url, payload, version=version, context=context)
            if resp.status_code == 204:
                return True
            if resp.status_code >= 500 and \
                    attempt < GENERATION_CONFLICT_RETRIES:
                # Placement had a transient failure (e.g. a busy database).
                time.sleep(0.05 * (attempt + 1))
                continue
            if (resp.status_code == 409 and
                    _error_code(resp) == _CONCURRENT_UPDATE and
                    'consumer generation' not in resp.text.lower() and
                    attempt < GENERATION_CONFLICT_RETRIES):
                # A provider generation moved under us; the data we send
                # does not depend on it, so simply send again.
                time.sleep(0.01 * (attempt + 1))
                continue
            LOG.warning('Unable to write allocations for consumer %(c)s. '
                        'Got %(code)d: %(text)s',
                        {'c': consumer_uuid, 'code': resp.status_code,
                         'text': resp.text})
            return False
        return False

    # -- allocations ----------------------------------------------------------
    def get_allocs_for_consumer(self, context, consumer):
        """Placement's full answer for a consumer: allocations,
        consumer_generation, project_id, user_id."""
        resp = self.get('/allocations/%s' % consumer,
                        version=CONSUMER_GENERATION_VERSION, context=context)
        if resp.status_code != 200:
            raise exception.ConsumerAllocationRetrievalFailed(
                consumer_uuid=consumer, error=resp.text)
        return resp.json()

    def get_allocations_for_consumer(self, context, consumer):
        return self.get_allocs_for_consumer(context, consumer)['allocations']

    def put_allocations(self, context, consumer_uuid, payload):
        """Replace a consumer's allocations with ``payload`` (1.28 body)."""
        return self._put_allocations_with_retry(
            context, consumer_uuid, payload, CONSUMER_GENERATION_VERSION)

    def move_allocations(self, context, source_consumer_uuid,
                         target_consumer_uuid):
        """Hand the source's allocations to the target in one POST."""
        source = self.get_allocs_for_consumer(context, source_consumer_uuid)
        target = self.get_allocs_for_consumer(context, target_consumer_uuid)
        if not source.get('allocations'):
            return True
        alloc = {k: {'resources': v['resources']}
                 for k, v in source['allocations'].items()}
        body = {
            source_consumer_uuid: {
                'allocations': {},
                'project_id': source['project_id'],
                'user_id': source['user_id'],
                'consumer_generation': source.get('consumer_generation')},
            target_consumer_uuid: {
                'allocations': alloc,
                'project_id': source['project_id'],
                'user_id': source['user_id'],
                'consumer_generation': target.get('consumer_generation')},
        }
        resp = self.post('/allocations', body,
                         version=CONSUMER_GENERATION_VERSION, context=context)
        if resp.status_code == 204:
            return True
        raise exception.AllocationMoveFailed(
            source_consumer=source_consumer_uuid,
            target_consumer=target_consumer_uuid, error=resp.text)

    def remove_provider_tree_from_instance_allocation(self, context,
                                                      consumer_uuid,
                                                      root_rp_uuid):
        """Drop the part of an allocation that sits in one provider tree."""
        allocs = self.get_allocs_for_consumer(context, consumer_uuid)
        if not allocs.get('allocations'):
            return True
        tree_rps = set(self.get_provider_tree_uuids(context, root_rp_uuid))
        kept = {rp: {'resources': a['resources']}
                for rp, a in allocs['allocations'].items()
                if rp not in tree_rps}
        payload = {'allocations': kept,
                   'project_id': allocs['project_id'],
                   'user_id': allocs['user_id'],
                   'consumer_generation': allocs['consumer_generation']}
        return self.put_allocations(context, consumer_uuid, payload)

    def delete_allocation_for_instance(self, context, uuid,
                                       consumer_type='instance', force=True):
        """Remove a consumer's allocations; a missing consumer is fine.

        ``force``: one DELETE.  Otherwise GET then PUT of empty
        allocations with the consumer generation read, as Nova releases a
        migration's allocation after a move (a concurrent change is a
        conflict instead of being lost).
        """
        if not force:
            return self._empty_allocations(context, uuid, consumer_type)
        url = '/allocations/%s' % uuid
        resp = self.delete(url, context=context)
        if resp.status_code in (204, 404):
            if resp.status_code == 204:
                LOG.info('Deleted allocations for %(type)s %(uuid)s',
                         {'type': consumer_type, 'uuid': uuid})
            return True
        LOG.warning('Unable to delete allocation for %(type)s %(uuid)s: '
                    '(%(code)i %(text)s)',
                    {'type': consumer_type, 'uuid': uuid,
                     'code': resp.status_code, 'text': resp.text})
        raise exception.AllocationDeleteFailed(consumer_uuid=uuid,
                                               error=resp.text)

    def _empty_allocations(self, context, uuid, consumer_type):
        current = self.get_allocs_for_consumer(context, uuid)
        if not current.get('allocations'):
            return True
        payload = {'allocations': {},
                   'project_id': current['project_id'],
                   'user_id': current['user_id'],
                   'consumer_generation': current.get('consumer_generation')}
        if self.put_allocations(context, uuid, payload):
            LOG.info('Deleted allocations for %(type)s %(uuid)s',
                     {'type': consumer_type, 'uuid': uuid})
            return True
        raise exception.AllocationDeleteFailed(
            consumer_uuid=uuid, error='the PUT of empty allocations failed')

    def get_allocations_for_resource_provider(self, context, rp_uuid):
        resp = self.get('/resource_providers/%s/allocations' % rp_uuid,
                        context=context)
        if resp.status_code != 200:
            raise exception.ResourceProviderRetrievalFailed(uuid=rp_uuid)
        return resp.json()['allocations']

    # -- quotas -------------------------------------------------------------
    def _usages(self, context, project_id, user_id=None):
        url = '/usages?project_id=%s' % project_id
        if user_id:
            url += '&user_id=%s' % user_id
        resp = self.get(url, version=GET_USAGES_VERSION, context=context)
        if resp.status_code != 200:
            raise exception.UsagesRetrievalFailed(project_id=project_id,
                                                  user_id=user_id)
        return resp.json()['usages']

    def get_usages_counts_for_quota(self, context, project_id, user_id=None):
        """Cores and RAM in use per project (and user) from GET /usages."""
        def counts(usages):
            return {'cores': usages.get('VCPU', 0),
                    'ram': usages.get('MEMORY_MB', 0)}
        result = {'project': counts(self._usages(context, project_id))}
        if user_id:
            result['user'] = counts(self._usages(context, project_id,
                                                 user_id))
        return result

    # -- host aggregates ------------------------------------------------------
    def _provider_by_name(self, context, name):
        resp = self.get('/resource_providers?name=%s' % name,
                        version=NESTED_PROVIDER_API_VERSION, context=context)
        providers = resp.json()['resource_providers'] \
            if resp.status_code == 200 else []
        if not providers:
            raise exception.ResourceProviderNotFound(name_or_uuid=name)
        return providers[0]['uuid']

    def _change_aggregates(self, context, agg_uuid, host_name, add):
        """Add or remove ``agg_uuid`` in the aggregates of the provider
        named ``host_name``, again when another writer got there first."""
        rp_uuid = self._provider_by_name(context, host_name)
        url = '/resource_providers/%s/aggregates' % rp_uuid
        for attempt in range(GENERATION_CONFLICT_RETRIES):
            resp = self.get(url, version=AGGREGATE_GENERATION_VERSION,
                            context=context)
            if resp.status_code != 200:
                raise exception.ResourceProviderRetrievalFailed(
                    uuid=rp_uuid)
            body = resp.json()
            aggs = set(body['aggregates'])
            if (agg_uuid in aggs) == add:
                return
            aggs = aggs | {agg_uuid} if add else aggs - {agg_uuid}
            resp = self.put(url, {
                'aggregates': sorted(aggs),
                'resource_provider_generation':
                    body['resource_provider_generation']},
                version=AGGREGATE_GENERATION_VERSION, context=context)
            if resp.status_code == 200:
                return
            if not (resp.status_code == 409 and
                    _error_code(resp) == _CONCURRENT_UPDATE):
                raise exception.ResourceProviderUpdateFailed(
                    url=url, error=resp.text)
        raise exception.ResourceProviderUpdateConflict(
            uuid=rp_uuid, generation=0, error=resp.text)

    def aggregate_add_host(self, context, agg_uuid, host_name):
        """Make the provider of compute node ``host_name`` a member of
        the Placement aggregate mirroring host aggregate ``agg_uuid``."""
        self._change_aggregates(context, agg_uuid, host_name, add=True)

    def aggregate_remove_host(self, context, agg_uuid, host_name):
        self._change_aggregates(context, agg_uuid, host_name, add=False)
