"""replay store: games, players, events, append requests, player stats

Revision ID: 0001
Revises: 
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('append_requests',
    sa.Column('request_id', sa.String(length=128), nullable=False),
    sa.Column('game_id', sa.String(length=64), nullable=False),
    sa.Column('first_seq', sa.Integer(), nullable=False),
    sa.Column('last_seq', sa.Integer(), nullable=False),
    sa.Column('head_hash', sa.LargeBinary(length=32), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('request_id', name=op.f('pk_append_requests'))
    )
    op.create_table('games',
    sa.Column('game_id', sa.String(length=64), nullable=False),
    sa.Column('variant', sa.String(length=32), nullable=False),
    sa.Column('rules_version', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('ended_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('head_seq', sa.Integer(), nullable=False),
    sa.Column('head_hash', sa.LargeBinary(length=32), nullable=False),
    sa.Column('result', sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint('game_id', name=op.f('pk_games'))
    )
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.create_index('ix_games_status_created_at', ['status', 'created_at'], unique=False)
        batch_op.create_index('ix_games_variant_created_at', ['variant', 'created_at'], unique=False)

    op.create_table('player_stats',
    sa.Column('player_id', sa.String(length=128), nullable=False),
    sa.Column('family', sa.String(length=16), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('total', sa.BigInteger(), nullable=False),
    sa.Column('last_game_id', sa.String(length=64), nullable=False),
    sa.Column('last_score', sa.BigInteger(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('player_id', 'family', name=op.f('pk_player_stats'))
    )
    op.create_table('events',
    sa.Column('game_id', sa.String(length=64), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('type', sa.String(length=32), nullable=False),
    sa.Column('server_time', sa.DateTime(timezone=True), nullable=False),
    sa.Column('actor', sa.String(length=128), nullable=False),
    sa.Column('cause', sa.String(length=16), nullable=False),
    sa.Column('visibility', sa.SmallInteger(), nullable=False),
    sa.Column('payload', sa.LargeBinary(), nullable=False),
    sa.Column('hash', sa.LargeBinary(length=32), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.game_id'], name=op.f('fk_events_game_id_games'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('game_id', 'seq', name=op.f('pk_events'))
    )
    op.create_table('game_players',
    sa.Column('game_id', sa.String(length=64), nullable=False),
    sa.Column('seat', sa.SmallInteger(), nullable=False),
    sa.Column('player_id', sa.String(length=128), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.game_id'], name=op.f('fk_game_players_game_id_games'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('game_id', 'seat', name=op.f('pk_game_players'))
    )
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.create_index('ix_game_players_player_id', ['player_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.drop_index('ix_game_players_player_id')

    op.drop_table('game_players')
    op.drop_table('events')
    op.drop_table('player_stats')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index('ix_games_variant_created_at')
        batch_op.drop_index('ix_games_status_created_at')

    op.drop_table('games')
    op.drop_table('append_requests')
