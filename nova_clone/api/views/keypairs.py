"""Key pair views."""

from nova_clone.api.views import common


def create(keypair, private_key=None, with_type=True, with_user=True):
    view = {'name': keypair.name, 'public_key': keypair.public_key,
            'fingerprint': keypair.fingerprint}
    if with_user:
        view['user_id'] = keypair.user_id
    if with_type:
        view['type'] = keypair.type
    if private_key is not None:
        view['private_key'] = private_key
    return {'keypair': view}


def show(keypair, with_type=True):
    view = {
        'name': keypair.name,
        'public_key': keypair.public_key,
        'fingerprint': keypair.fingerprint,
        'user_id': keypair.user_id,
        'deleted': False,
        'created_at': _dbtime(keypair.created_at),
        'updated_at': _dbtime(keypair.updated_at),
        'deleted_at': None,
        'id': keypair.id,
    }
    if with_type:
        view['type'] = keypair.type
    return {'keypair': view}


def _dbtime(value):
    # Key pair show prints the raw database timestamp (no Z), as Nova.
    if value is None:
        return None
    return value.replace(tzinfo=None).isoformat()


def index(req, keypairs, with_type=True, limit=None, user_id=None):
    items = []
    for kp in keypairs:
        view = {'name': kp.name, 'public_key': kp.public_key,
                'fingerprint': kp.fingerprint}
        if with_type:
            view['type'] = kp.type
        items.append({'keypair': view})
    body = {'keypairs': items}
    if limit and len(items) == limit:
        names = [{'name': i['keypair']['name']} for i in items]
        links = common.next_link(req, 'os-keypairs', names, limit,
                                 marker_key='name')
        if links:
            body['keypairs_links'] = links
    return body
