"""clouds.yaml entries for the openstack CLI and SDK.

A stack owns its clouds.yaml and rewrites it whole (``write``); the
embedded cloud adds its entries to the user's file, keeping the other
clouds there and leaving a file that is not a clouds.yaml alone
(``merge``).  Both write the file readable by its owner only: it holds
passwords.
"""

import os

from oslo_log import log as logging
import yaml

LOG = logging.getLogger(__name__)

USER_CLOUDS_YAML = os.path.join('~', '.config', 'openstack', 'clouds.yaml')


def entry(auth_url, user, password, project, region):
    """One cloud: a password user of the Default domain."""
    return {
        'auth': {
            'auth_url': auth_url,
            'username': user,
            'password': password,
            'project_name': project,
            'user_domain_name': 'Default',
            'project_domain_name': 'Default',
        },
        'region_name': region,
        'identity_api_version': 3,
        'interface': 'public',
    }


def _replace(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + '.tmp'
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        yaml.safe_dump(data, f, default_flow_style=False, sort_keys=False)
    os.replace(tmp, path)


def write(path, clouds):
    """Make ``path`` hold exactly ``clouds``; returns ``path``."""
    _replace(path, {'clouds': clouds})
    return path


def merge(path, clouds):
    """Merge ``clouds`` into the clouds.yaml at ``path``; True if written."""
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
    try:
        _replace(path, data)
    except OSError as exc:
        LOG.warning('Cannot write %s: %s', path, exc)
        return False
    return True
