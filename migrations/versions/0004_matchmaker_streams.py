"""matchmaker streams: open Subscribe streams with a lease, so a seat's connection is known to every instance

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('mm_streams',
    sa.Column('stream_id', sa.String(length=64), nullable=False),
    sa.Column('table_id', sa.String(length=64), nullable=False),
    sa.Column('seat', sa.SmallInteger(), nullable=False),
    sa.Column('player_id', sa.String(length=128), nullable=False),
    sa.Column('instance', sa.String(length=32), nullable=False),
    sa.Column('lease_ms', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('stream_id', name=op.f('pk_mm_streams'))
    )
    with op.batch_alter_table('mm_streams', schema=None) as batch_op:
        batch_op.create_index('ix_mm_streams_lease_ms', ['lease_ms'], unique=False)
        batch_op.create_index('ix_mm_streams_table_id_seat', ['table_id', 'seat'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('mm_streams', schema=None) as batch_op:
        batch_op.drop_index('ix_mm_streams_table_id_seat')
        batch_op.drop_index('ix_mm_streams_lease_ms')

    op.drop_table('mm_streams')
