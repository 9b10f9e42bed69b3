"""ratings: each person's OpenSkill rating per variant, every rated game's change, and the
per-variant counter that orders the ratings by when replay stored each game's end

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02

Written by replay in the transaction that stores a game's ``game_over`` (services/ratings).
The games that ended before this revision are rated here, in the order they ended, by the
same function (services/ratings/rebuild.py: backfill), so that no player starts from nothing
and ``cardroom ratings rebuild`` finds every ended game rated.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'rating_heads',
        sa.Column('variant', sa.String(length=32), nullable=False),
        sa.Column('seq', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('variant', name=op.f('pk_rating_heads')),
    )
    op.create_table(
        'rated_games',
        sa.Column('game_id', sa.String(length=64), nullable=False),
        sa.Column('variant', sa.String(length=32), nullable=False),
        sa.Column('seq', sa.BigInteger(), nullable=False),
        sa.Column('changes', sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint('game_id', name=op.f('pk_rated_games')),
    )
    with op.batch_alter_table('rated_games', schema=None) as batch_op:
        batch_op.create_index('ix_rated_games_variant_seq', ['variant', 'seq'], unique=True)
    op.create_table(
        'player_ratings',
        sa.Column('player_id', sa.String(length=128), nullable=False),
        sa.Column('variant', sa.String(length=32), nullable=False),
        sa.Column('mu', sa.Double(), nullable=False),
        sa.Column('sigma', sa.Double(), nullable=False),
        sa.Column('ordinal', sa.Double(), nullable=False),
        sa.Column('games', sa.Integer(), nullable=False),
        sa.Column('last_game_id', sa.String(length=64), nullable=False),
        sa.Column('last_seq', sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint('player_id', 'variant', name=op.f('pk_player_ratings')),
    )
    with op.batch_alter_table('player_ratings', schema=None) as batch_op:
        batch_op.create_index(
            'ix_player_ratings_variant_ordinal', ['variant', 'ordinal', 'player_id'], unique=False
        )
    # The rating arithmetic is the service's own (a pure function of the log): a copy here
    # could rate the old games otherwise than rebuild recomputes them.
    from services.ratings.rebuild import backfill

    backfill(op.get_bind())


def downgrade() -> None:
    with op.batch_alter_table('player_ratings', schema=None) as batch_op:
        batch_op.drop_index('ix_player_ratings_variant_ordinal')
    op.drop_table('player_ratings')
    with op.batch_alter_table('rated_games', schema=None) as batch_op:
        batch_op.drop_index('ix_rated_games_variant_seq')
    op.drop_table('rated_games')
    op.drop_table('rating_heads')
