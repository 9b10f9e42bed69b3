"""matchmaker outbox: an index on (game_id, id), for the per-game claim (each game's oldest row) and the per-game reads and backoff

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from collections.abc import Sequence

from alembic import op


revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('mm_outbox', schema=None) as batch_op:
        batch_op.create_index('ix_mm_outbox_game_id_id', ['game_id', 'id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('mm_outbox', schema=None) as batch_op:
        batch_op.drop_index('ix_mm_outbox_game_id_id')
