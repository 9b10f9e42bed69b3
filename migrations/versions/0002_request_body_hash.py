"""append requests keep a digest of their body: a reused request id with another body is refused

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("append_requests") as batch:
        batch.add_column(sa.Column("body_hash", sa.LargeBinary(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("append_requests") as batch:
        batch.drop_column("body_hash")
