"""APIs Nova removed; they answer 410 Gone at every microversion."""

import webob.exc


class RemovedController(object):

    def __init__(self, release):
        self.release = release

    def gone(self, req, **params):
        raise webob.exc.HTTPGone()

    def methods(self, *verbs):
        return {verb: self.gone for verb in verbs}


REMOVED = {
    '/os-agents': '22.0.0',
    '/os-agents/{id}': '22.0.0',
    '/os-cells': '20.0.0',
    '/os-cells/{id}': '20.0.0',
    '/os-cells/{id}/{action}': '20.0.0',
    '/os-certificates': '16.0.0',
    '/os-certificates/{id}': '16.0.0',
    '/os-cloudpipe': '16.0.0',
    '/os-cloudpipe/{id}': '16.0.0',
    '/os-fixed-ips/{id}': '18.0.0',
    '/os-fixed-ips/{id}/action': '18.0.0',
    '/os-floating-ip-dns': '18.0.0',
    '/os-floating-ip-dns/{domain}': '18.0.0',
    '/os-floating-ip-dns/{domain}/entries/{entry}': '18.0.0',
    '/os-floating-ips-bulk': '18.0.0',
    '/os-floating-ips-bulk/{id}': '18.0.0',
    '/os-fping': '18.0.0',
    '/os-fping/{id}': '18.0.0',
    '/os-security-group-default-rules': '21.0.0',
    '/os-security-group-default-rules/{id}': '21.0.0',
    '/servers/{server_id}/os-virtual-interfaces': '18.0.0',
    '/servers/{server_id}/consoles': '21.0.0',
    '/servers/{server_id}/consoles/{id}': '21.0.0',
}


def routes():
    out = []
    for path, release in REMOVED.items():
        ctrl = RemovedController(release)
        out.append((path, ctrl.methods('GET', 'POST', 'PUT', 'DELETE')))
    return out
