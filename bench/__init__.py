"""cardroom's benchmark: ``python -m bench [SECTION ...] [--quick]`` (or ``make bench``).

Each section is a function that takes the run's :class:`~bench.common.Context` and returns
:class:`~bench.common.Table` values; ``bench.__main__`` prints them on stdout (progress goes to
stderr).  Add a section by writing such a function and listing it in
:data:`bench.sections.SECTIONS`.

Nothing here is a timed test: the figures are printed, never asserted.
"""
