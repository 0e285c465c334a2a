"""clouds.yaml entries for the embedded cloud, for the openstack CLI/SDK.

Entries of other clouds in an existing file are kept; only this cloud's
entries are replaced.  A file that cannot be read as YAML is left alone.
"""

import os

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

USER_CLOUDS_YAML = os.path.join('~', '.config', 'openstack', 'clouds.yaml')


def entries(cloud_name, identity_url, creds, region):
    def entry(user, password, project):
        return {
            'auth': {
                'auth_url': identity_url,
                'username': user,
                'password': password,
                'project_name': project,
                'user_domain_name': 'Default',
                'project_domain_name': 'Default',
            },
            'region_name': region,
            'interface': 'public',
            'identity_api_version': 3,
        }
    return {
        cloud_name: entry('admin', creds['admin_password'], 'admin'),
        cloud_name + '-demo': entry('demo', creds['demo_password'], 'demo'),
    }


def write(path, clouds):
    """Merge ``clouds`` into the clouds.yaml at ``path``; True if written."""
    import yaml

    path = os.path.abspath(os.path.expanduser(path))
    data = {}
    if os.path.exists(path):
        try:
            with open(path) as f:
                data = yaml.safe_load(f) or {}
        except (OSError, yaml.YAMLError) as exc:
            LOG.warning('Not touching %s: %s', path, exc)
            return False
        if not isinstance(data, dict):
            LOG.warning('Not touching %s: not a clouds.yaml mapping', path)
            return False
    section = data.get('clouds')
    if not isinstance(section, dict):
        section = data['clouds'] = {}
    section.update(clouds)
    tmp = path + '.tmp'
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as f:
            yaml.safe_dump(data, f, default_flow_style=False,
                           sort_keys=False)
        os.replace(tmp, path)
    except OSError as exc:
        LOG.warning('Cannot write %s: %s', path, exc)
        return False
    return True
