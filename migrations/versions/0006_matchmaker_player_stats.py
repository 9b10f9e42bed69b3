"""matchmaker player stats: each player's totals and last game, written with the game's end

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02

GetPlayer answered from replay's totals, which lag a game's end by the outbox's delivery (a
client asking at once saw no last game, or the old total).  The matchmaker now keeps its own,
written in the transaction that writes the game's ``game_over``.  The rows start from replay's
``player_stats`` (the same database holds both), so no player's record restarts at zero.
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ms(when: datetime | None) -> int:
    if when is None:
        return 0
    # SQLite gives the stored time back without its zone; it was stored in UTC.
    return int((when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp() * 1000)


def upgrade() -> None:
    stats = op.create_table(
        'mm_player_stats',
        sa.Column('player_id', sa.String(length=128), nullable=False),
        sa.Column('family', sa.String(length=16), nullable=False),
        sa.Column('games', sa.Integer(), nullable=False),
        sa.Column('total', sa.BigInteger(), nullable=False),
        sa.Column('last_game_id', sa.String(length=64), nullable=False),
        sa.Column('last_score', sa.BigInteger(), nullable=False),
        sa.Column('last_ended_ms', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('player_id', 'family'),
    )
    replay = sa.table(
        'player_stats',
        sa.column('player_id'), sa.column('family'), sa.column('games'), sa.column('total'),
        sa.column('last_game_id'), sa.column('last_score'),
        sa.column('updated_at', sa.DateTime(timezone=True)),
    )
    rows = op.get_bind().execute(sa.select(replay)).all()
    if rows:
        op.bulk_insert(stats, [
            {'player_id': r.player_id, 'family': r.family, 'games': r.games, 'total': r.total,
             'last_game_id': r.last_game_id, 'last_score': r.last_score,
             'last_ended_ms': _ms(r.updated_at)}
            for r in rows
        ])


def downgrade() -> None:
    op.drop_table('mm_player_stats')
