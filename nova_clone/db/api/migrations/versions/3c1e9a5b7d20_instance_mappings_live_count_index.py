"""An index for counting a project's live instance mappings.

Quota checks count them on every server create; with only project_id
indexed, the count reads every mapping the project ever had, so a create
got slower with each server deleted before the next archive.

Revision ID: 3c1e9a5b7d20
Revises: d67eeaabee36
"""

from alembic import op

revision = '3c1e9a5b7d20'
down_revision = 'd67eeaabee36'
branch_labels = None
depends_on = None

INDEX = 'instance_mappings_project_id_queued_for_delete_idx'


def upgrade():
    op.create_index(INDEX, 'instance_mappings',
                    ['project_id', 'queued_for_delete', 'user_id'],
                    unique=False)
