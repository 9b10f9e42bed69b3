"""structlog, configured once per process.

One chain of processors for everything: our own structlog loggers and the standard library's
``logging`` (grpc, sqlalchemy, alembic) both end in the same renderer — JSON lines when stderr
is not a terminal (production, CI, files), a readable console format when it is.  Values
bound with :func:`bind_request` (request id, method) are attached to every line logged while a
call runs, through contextvars, so they follow the call across ``await`` points.
"""

from __future__ import annotations

import logging
import logging.config
import sys
from typing import Any

import structlog

_configured = False


def configure(level: str = "info", fmt: str = "auto", *, force: bool = False) -> None:
    """Configure logging for this process; later calls are no-ops unless ``force``."""
    global _configured
    if _configured and not force:
        return
    _configured = True
    json_out = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if json_out
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    logging.config.dictConfig(
        {
            "version": 1,
            "disable_existing_loggers": False,
            "formatters": {
                "structlog": {
                    "()": structlog.stdlib.ProcessorFormatter,
                    "processors": [
                        structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                        *([structlog.processors.format_exc_info] if json_out else []),
                        renderer,
                    ],
                    "foreign_pre_chain": shared,
                }
            },
            "handlers": {
                "stderr": {
                    "class": "logging.StreamHandler",
                    "stream": "ext://sys.stderr",
                    "formatter": "structlog",
                }
            },
            "root": {"handlers": ["stderr"], "level": level.upper()},
        }
    )
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def get_logger(name: str) -> Any:
    return structlog.stdlib.get_logger(name)


def bind_request(**values: Any) -> None:
    """Attach values (request id, method, …) to every line logged in this context."""
    structlog.contextvars.bind_contextvars(**values)


def clear_request() -> None:
    structlog.contextvars.clear_contextvars()
