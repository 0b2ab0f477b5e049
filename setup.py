"""`pip install .`: the extension react._react is built by the project's CMake (docs/python.md);
setuptools copies it into the package beside python/react/*.py. Nothing is downloaded: CMake
finds what scripts/install-deps.sh installed. CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs
(default: every core) and CMAKE_ARGS adds CMake options."""

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(self.build_temp).resolve() / "cmake"
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release", "-DREACT_BUILD_TESTS=OFF",
                     "-DREACT_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
        subprocess.run(configure + shlex.split(os.environ.get("CMAKE_ARGS", "")), check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build), "--target", "_react", "-j", jobs], check=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build / "python" / "react" / target.name, target)


def version():
    """The project's version, as CMakeLists.txt's project() gives it."""
    return re.search(r"project\(react [^)]*VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


# setuptools' build directory beside CMake's (build/), which .gitignore covers as /build*/.
(ROOT / "build-pip").mkdir(exist_ok=True)
setup(version=version(), ext_modules=[CMakeExtension("react._react")], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}})
