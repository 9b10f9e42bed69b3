"""matchmaker tables: tickets, holds (one live ticket or seat per player), tables, table events, outbox, request ids

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('mm_holds',
    sa.Column('player_id', sa.String(length=128), nullable=False),
    sa.Column('ticket_id', sa.String(length=64), nullable=True),
    sa.Column('table_id', sa.String(length=64), nullable=True),
    sa.Column('seat', sa.SmallInteger(), nullable=True),
    sa.PrimaryKeyConstraint('player_id', name=op.f('pk_mm_holds'))
    )
    op.create_table('mm_outbox',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('game_id', sa.String(length=64), nullable=False),
    sa.Column('first_seq', sa.Integer(), nullable=False),
    sa.Column('body', sa.LargeBinary(), nullable=False),
    sa.Column('created_ms', sa.BigInteger(), nullable=False),
    sa.Column('next_try_ms', sa.BigInteger(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('last_error', sa.String(length=256), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mm_outbox'))
    )
    with op.batch_alter_table('mm_outbox', schema=None) as batch_op:
        batch_op.create_index('ix_mm_outbox_next_try_ms', ['next_try_ms'], unique=False)

    op.create_table('mm_requests',
    sa.Column('table_id', sa.String(length=64), nullable=False),
    sa.Column('request_id', sa.String(length=128), nullable=False),
    sa.Column('body_hash', sa.LargeBinary(length=32), nullable=False),
    sa.Column('response', sa.LargeBinary(), nullable=False),
    sa.Column('created_ms', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('table_id', 'request_id', name=op.f('pk_mm_requests'))
    )
    op.create_table('mm_table_events',
    sa.Column('table_id', sa.String(length=64), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('to_seat', sa.SmallInteger(), nullable=True),
    sa.Column('body', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('table_id', 'seq', name=op.f('pk_mm_table_events'))
    )
    op.create_table('mm_tables',
    sa.Column('table_id', sa.String(length=64), nullable=False),
    sa.Column('variant', sa.String(length=32), nullable=False),
    sa.Column('config', sa.JSON(), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('seats', sa.JSON(), nullable=False),
    sa.Column('game_no', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.String(length=64), nullable=True),
    sa.Column('engine_seq', sa.Integer(), nullable=False),
    sa.Column('token', sa.LargeBinary(), nullable=True),
    sa.Column('turn', sa.SmallInteger(), nullable=True),
    sa.Column('turn_deadline_ms', sa.BigInteger(), nullable=True),
    sa.Column('start_deadline_ms', sa.BigInteger(), nullable=True),
    sa.Column('due_ms', sa.BigInteger(), nullable=True),
    sa.Column('lease_ms', sa.BigInteger(), nullable=False),
    sa.Column('first_bidder', sa.SmallInteger(), nullable=True),
    sa.Column('last_scores', sa.JSON(), nullable=True),
    sa.Column('last_settlement', sa.Text(), nullable=True),
    sa.Column('created_ms', sa.BigInteger(), nullable=False),
    sa.Column('updated_ms', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('table_id', name=op.f('pk_mm_tables'))
    )
    with op.batch_alter_table('mm_tables', schema=None) as batch_op:
        batch_op.create_index('ix_mm_tables_due_ms', ['due_ms'], unique=False)
        batch_op.create_index('ix_mm_tables_state_variant', ['state', 'variant'], unique=False)

    op.create_table('mm_tickets',
    sa.Column('ticket_id', sa.String(length=64), nullable=False),
    sa.Column('player_id', sa.String(length=128), nullable=False),
    sa.Column('players', sa.JSON(), nullable=False),
    sa.Column('pool', sa.String(length=512), nullable=False),
    sa.Column('variant', sa.String(length=32), nullable=False),
    sa.Column('config', sa.JSON(), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('table_id', sa.String(length=64), nullable=True),
    sa.Column('seats', sa.JSON(), nullable=True),
    sa.Column('request_id', sa.String(length=128), nullable=True),
    sa.Column('created_ms', sa.BigInteger(), nullable=False),
    sa.Column('fill_ms', sa.BigInteger(), nullable=True),
    sa.Column('expires_ms', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('ticket_id', name=op.f('pk_mm_tickets')),
    sa.UniqueConstraint('request_id', name=op.f('uq_mm_tickets_request_id'))
    )
    with op.batch_alter_table('mm_tickets', schema=None) as batch_op:
        batch_op.create_index('ix_mm_tickets_state_pool_created_ms', ['state', 'pool', 'created_ms'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('mm_tickets', schema=None) as batch_op:
        batch_op.drop_index('ix_mm_tickets_state_pool_created_ms')

    op.drop_table('mm_tickets')
    with op.batch_alter_table('mm_tables', schema=None) as batch_op:
        batch_op.drop_index('ix_mm_tables_state_variant')
        batch_op.drop_index('ix_mm_tables_due_ms')

    op.drop_table('mm_tables')
    op.drop_table('mm_table_events')
    op.drop_table('mm_requests')
    with op.batch_alter_table('mm_outbox', schema=None) as batch_op:
        batch_op.drop_index('ix_mm_outbox_next_try_ms')

    op.drop_table('mm_outbox')
    op.drop_table('mm_holds')
