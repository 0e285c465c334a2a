"""clouds.yaml for the users a stack creates (admin, demo, reader)."""

import os

import yaml

# cloud name -> (user, project)
CLOUDS = {
    'admin': ('admin', 'admin'),
    'demo': ('demo', 'demo'),
    'reader': ('reader', 'demo'),
}


def render(auth_url, password, region='RegionOne'):
    clouds = {}
    for cloud, (user, project) in CLOUDS.items():
        clouds[cloud] = {
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
    return yaml.safe_dump({'clouds': clouds}, default_flow_style=False,
                          sort_keys=False)


def write(path, auth_url, password, region='RegionOne'):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + '.tmp'
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        f.write(render(auth_url, password, region))
    os.replace(tmp, path)
    return path
