"""Files to inject into a server at boot (``personality``, up to 2.56):
decoded, and held to the project's injected-file quotas as Nova holds
them (403 over a limit)."""

import base64

from nova_clone.api import common
from nova_clone import quota


def injected_files(context, personality):
    """[(path, contents bytes)] of a create request's ``personality``."""
    files = []
    for item in personality or []:
        path = item.get('path')
        try:
            contents = base64.b64decode(item.get('contents', ''),
                                        validate=True)
        except ValueError:
            raise common.bad_request('Personality content for %s cannot be '
                                     'decoded' % path)
        files.append((path, contents))
    if files:
        _check_quota(context, files)
    return files


def _over(limit, value):
    return limit is not None and 0 <= limit < value


def _check_quota(context, files):
    limits = quota.get_limits_for(context, context.project_id)
    if _over(limits['injected_files'], len(files)):
        raise common.forbidden('Personality file limit exceeded')
    # The path limit is reported first when both are passed, as in Nova.
    longest_path = max(len(path or '') for path, _contents in files)
    path_limit = limits['injected_file_path_length']
    if _over(path_limit, longest_path):
        raise common.forbidden('Personality file path exceeds maximum %s'
                               % path_limit)
    largest = max(len(contents) for _path, contents in files)
    content_limit = limits['injected_file_content_bytes']
    if _over(content_limit, largest):
        raise common.forbidden('Personality file content exceeds maximum %s'
                               % content_limit)
