#!/usr/bin/env bash
# Installs the dependencies, builds react's tools (Release; every app in build/bin/, so that the
# README's react-gen, react-bench and react-fuzz examples work next) and its Python module
# (build/python, the README's Python quick start), and runs the main job, react-demo.
# Arguments go to react-demo: .mtx files or folders of them, e.g. ../shared/data/matrices.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)" --target react-apps react-python
./build/bin/react-demo "$@"
