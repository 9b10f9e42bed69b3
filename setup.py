"""The optional compiled rules core (services/engine/rules/_native.pyx, Cython).

Everything else about the package is in pyproject.toml.  When Cython or a C compiler is
missing, or the build fails, the install goes on with the pure-Python core (one line says so);
``cardroom version`` tells which core is active, and CARDROOM_PURE=1 turns the compiled one off.
"""

from __future__ import annotations

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NOTE = "cardroom: the compiled rules core was not built ({}); using the pure-Python core"


class OptionalBuildExt(build_ext):
    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, say: the pure core is complete
            print(NOTE.format(exc), file=sys.stderr)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            print(NOTE.format(exc), file=sys.stderr)


def extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:
        print(NOTE.format("Cython is not installed"), file=sys.stderr)
        return []
    ext = Extension(
        "services.engine.rules._native",
        ["services/engine/rules/_native.pyx"],
        extra_compile_args=["-O2"],
        optional=True,
    )
    try:
        return list(cythonize([ext], language_level=3, quiet=True))
    except Exception as exc:
        print(NOTE.format(exc), file=sys.stderr)
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
