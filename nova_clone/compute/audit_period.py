"""The periods instance usage is audited over ([DEFAULT]
instance_usage_audit_period), shared by the computes' audit and the API's
report of it."""

import datetime

from oslo_utils import timeutils

from nova_clone.conf import CONF


def last_completed_period(before=None):
    """(begin, end) of the last whole period ('hour', 'day', 'month' or
    'year') ending at or before ``before`` (now)."""
    now = before or timeutils.utcnow().replace(tzinfo=None)
    unit = CONF.instance_usage_audit_period
    if unit == 'hour':
        end = now.replace(minute=0, second=0, microsecond=0)
        return end - datetime.timedelta(hours=1), end
    if unit == 'day':
        end = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return end - datetime.timedelta(days=1), end
    if unit == 'year':
        end = datetime.datetime(now.year, 1, 1)
        return datetime.datetime(now.year - 1, 1, 1), end
    end = datetime.datetime(now.year, now.month, 1)
    begin = datetime.datetime(now.year - (now.month == 1),
                              (now.month - 2) % 12 + 1, 1)
    return begin, end
