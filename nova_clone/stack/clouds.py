"""clouds.yaml for the users a stack creates (admin, demo, reader)."""

from nova_clone.deploy import clouds_yaml

# cloud name -> (user, project)
CLOUDS = {
    'admin': ('admin', 'admin'),
    'demo': ('demo', 'demo'),
    'reader': ('reader', 'demo'),
}


def write(path, auth_url, password, region='RegionOne'):
    return clouds_yaml.write(path, {
        cloud: clouds_yaml.entry(auth_url, user, password, project, region)
        for cloud, (user, project) in CLOUDS.items()})
