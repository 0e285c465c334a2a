"""Compare our responses with Nova's api_samples: keys and value types,
never the literal ids, names or dates.

The samples compared against are in doc/api_samples, laid out as in
Nova's tree (doc/api_samples/<folder>/<file>.json); a test that compares
with another sample adds that file there.
"""

import json
import os
import pathlib

SAMPLES_DIR = str(pathlib.Path(__file__).resolve().parents[3] / 'doc' /
                  'api_samples')


def available():
    """The samples must be there: a missing folder fails the comparison
    tests instead of silently passing them."""
    if not os.path.isdir(SAMPLES_DIR):
        raise AssertionError('Nova api_samples not found at %s'
                             % SAMPLES_DIR)
    return True


def load(relpath):
    available()
    with open(os.path.join(SAMPLES_DIR, relpath)) as f:
        return json.load(f)


def _kind(value):
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'bool'
    if isinstance(value, (int, float)):
        return 'number'
    if isinstance(value, str):
        return 'string'
    if isinstance(value, list):
        return 'list'
    return 'dict'


def differences(sample, ours, path='', free=()):
    """Human-readable mismatches between a sample and our body.

    ``free`` lists paths (dotted, lists as []) whose content is data
    rather than shape (metadata, extra_specs...): only their type counts.
    """
    out = []
    if path in free:
        if _kind(sample) != _kind(ours) and 'null' not in (
                _kind(sample), _kind(ours)):
            out.append('%s: %s vs %s' % (path, _kind(sample), _kind(ours)))
        return out
    ks, ko = _kind(sample), _kind(ours)
    if 'null' in (ks, ko):
        return out  # nullable: either side may be null
    if ks != ko:
        return ['%s: sample is %s, ours is %s' % (path or '.', ks, ko)]
    if ks == 'dict':
        missing = sorted(set(sample) - set(ours))
        extra = sorted(set(ours) - set(sample))
        if missing:
            out.append('%s: missing keys %s' % (path or '.', missing))
        if extra:
            out.append('%s: extra keys %s' % (path or '.', extra))
        for key in set(sample) & set(ours):
            out.extend(differences(sample[key], ours[key],
                                   '%s.%s' % (path, key) if path else key,
                                   free))
    elif ks == 'list' and sample and ours:
        out.extend(differences(sample[0], ours[0], path + '[]', free))
    return out


def assert_matches(relpath, ours, free=()):
    diffs = differences(load(relpath), ours, free=free)
    assert not diffs, '%s:\n  %s' % (relpath, '\n  '.join(diffs))
