"""Instances that ran in a window, across every cell (os-simple-tenant-usage).

Deleted instances count: the window query reads them whatever the
context's read_deleted.  Pages walk the cells in the order the API
database lists them, each cell's instances by (project_id, uuid); a
marker names the last instance of the previous page, so the walk resumes
in the cell that holds it.
"""

from nova_clone import context as nova_context
from nova_clone import exception


def _objects():
    from nova_clone import objects
    return objects


def instances_in_window(context, begin, end, project_id=None, limit=None,
                        marker=None):
    objects = _objects()
    found = []
    resumed = marker is None
    for cell in objects.CellMappingList.get_all(context):
        if limit is not None and len(found) >= limit:
            break
        with nova_context.target_cell(context, cell) as cctxt:
            want = None if limit is None else limit - len(found)
            if resumed:
                found.extend(objects.InstanceList.get_active_by_window_joined(
                    cctxt, begin, end, project_id=project_id,
                    expected_attrs=['flavor'], limit=want))
                continue
            try:
                found.extend(objects.InstanceList.get_active_by_window_joined(
                    cctxt, begin, end, project_id=project_id,
                    expected_attrs=['flavor'], limit=want, marker=marker))
            except exception.MarkerNotFound:
                continue
            resumed = True
    if not resumed:
        raise exception.MarkerNotFound(marker=marker)
    return found
