"""The optional compiled rules core (services/rules/_native.pyx, Cython).

Everything else about the package is in pyproject.toml.  When Cython or a C compiler is
missing, or the build fails, the install goes on with the pure-Python core (one line says so);
``cardroom version`` tells which core is active, and CARDROOM_PURE=1 turns the compiled one off.
"""

from __future__ import annotations

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_noted: list[str] = []


def note(why: object) -> None:
    """The one line an install without the compiled core prints (once, however it failed)."""
    if not _noted:
        text = " ".join(str(why).split())[:160]
        _noted.append(text)
        print(f"cardroom: compiled rules core not built ({text}); using the pure-Python core",
              file=sys.stderr)  # fmt: skip


class OptionalBuildExt(build_ext):
    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, say: the pure core is complete
            note(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            note(exc)

    def copy_extensions_to_source(self) -> None:
        # An editable install copies the built module next to its source: nothing to copy
        # when the build failed.
        if not _noted:
            super().copy_extensions_to_source()


def extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:
        note("Cython is not installed")
        return []
    ext = Extension(
        "services.rules._native",
        ["services/rules/_native.pyx"],
        extra_compile_args=["-O2"],
        optional=True,
    )
    try:
        return list(cythonize([ext], language_level=3, quiet=True))
    except Exception as exc:
        note(exc)
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
