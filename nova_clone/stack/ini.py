"""Writing the stack's INI configuration files.

A plain writer rather than configparser: values such as
``%(project_id)s`` must reach the file verbatim and option names keep
their case.
"""

import os


def render(sections, kept=None):
    """sections: {section: {option: value}} in the order to write them.

    None values are left out; booleans become true/false.  ``kept``:
    {section: [raw lines]} added after the section's own options (an
    operator's additions, see operator_lines).
    """
    kept = dict(kept or {})
    out = []
    for section, options in sections.items():
        out.append('[%s]' % section)
        for key, value in options.items():
            if value is None:
                continue
            if isinstance(value, bool):
                value = 'true' if value else 'false'
            out.append('%s = %s' % (key, value))
        out.extend(kept.pop(section, []))
        out.append('')
    for section, lines in kept.items():
        out.extend(['[%s]' % section] + lines + [''])
    return '\n'.join(out)


def operator_lines(text, sections):
    """{section: [raw lines]} of ``text`` that ``sections`` does not set:
    the options (and comments) an operator added to a file we wrote."""
    kept = {}
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith('[') and line.endswith(']'):
            section = line[1:-1].strip()
            continue
        if not line or section is None:
            continue
        if line[0] not in '#;':
            key = line.split('=', 1)[0].strip()
            if key in sections.get(section, {}):
                continue
        kept.setdefault(section, []).append(raw.rstrip())
    # A section holding only comments is not worth keeping.
    return {name: lines for name, lines in kept.items()
            if any(not x.lstrip().startswith(('#', ';')) for x in lines)}


def write(path, sections):
    """Write the file (mode 0600: it holds passwords); return path.

    Options the stack sets are rewritten; options an operator added to an
    existing file are kept.
    """
    os.makedirs(os.path.dirname(path), exist_ok=True)
    kept = None
    if os.path.exists(path):
        with open(path) as f:
            kept = operator_lines(f.read(), sections)
    text = render(sections, kept)
    tmp = path + '.tmp'
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        f.write(text)
    os.replace(tmp, path)
    return path


def authtoken(layout, username, password=None, **extra):
    """A [keystone_authtoken] section for a service user of the stack."""
    section = {
        'www_authenticate_uri': layout.url('keystone'),
        'auth_url': layout.url('keystone'),
        'auth_type': 'password',
        'project_domain_name': 'Default',
        'user_domain_name': 'Default',
        'project_name': 'service',
        'username': username,
        'password': password or layout.service_password,
        'region_name': 'RegionOne',
        'service_token_roles_required': True,
    }
    section.update(extra)
    return section


def service_auth(layout, username, **extra):
    """keystoneauth1 password options for a client group ([placement],
    [neutron], [service_user], ...)."""
    section = {
        'auth_type': 'password',
        'auth_url': layout.url('keystone'),
        'project_domain_name': 'Default',
        'user_domain_name': 'Default',
        'project_name': 'service',
        'username': username,
        'password': layout.service_password,
        'region_name': 'RegionOne',
    }
    section.update(extra)
    return section
