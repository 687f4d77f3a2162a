# robot_dynamics: one-command set-up and tests on a machine with Python 3.11, cmake and gcc.
#   make test   set up everything (venv + ROS 2 Jazzy wheels, interfaces, package), run pytest
#   make demo   set up everything, run the demo
# Every step is idempotent and keyed on file contents: a second run takes seconds.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

VENV ?= $(CURDIR)/.venv
PY := $(VENV)/bin/python
export VENV

# DDS discovery stays on this machine for tests, demo runs and benchmarks; pick your own
# domain with `make test ROS_DOMAIN_ID=17` (or from the environment).
ROS_DOMAIN_ID ?= 42
export ROS_DOMAIN_ID
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST
# Started from a python of another bootstrapped venv? Let ours set its own LD_LIBRARY_PATH.
unexport _ROS_WHEELS_BOOTSTRAP_COMPLETE

# `make test TESTS=test/test_smoke_dds.py PYTEST_ARGS=-x` runs a subset.
TESTS ?= test
PYTEST_ARGS ?=
LINT_PATHS := $(wildcard robot_dynamics test benchmarks scripts launch) setup.py

.PHONY: help venv setup interfaces install test demo bench lint params-doc clean

help:
	@echo "make test        set up .venv (ROS 2 Jazzy wheels), build interfaces, install, run pytest"
	@echo "make demo        set up, then run the demo"
	@echo "make venv|setup  create/refresh .venv only      make interfaces  build robot_dynamics_interfaces"
	@echo "make install     install robot_dynamics (editable) into .venv"
	@echo "make bench       run benchmarks/*.py            make lint        ruff over the sources"
	@echo "make params-doc  regenerate docs/parameters.md from the declarations"
	@echo "make clean       remove .venv and build outputs"
	@echo "variables: ROS_DOMAIN_ID (default 42), TESTS (default test), PYTEST_ARGS, VENV"

venv setup:
	@bash scripts/setup_env.sh

interfaces: setup
	@bash scripts/build_interfaces.sh

install: interfaces
	@bash scripts/install_package.sh

test: install
	@echo "[make test] ROS_DOMAIN_ID=$$ROS_DOMAIN_ID ROS_AUTOMATIC_DISCOVERY_RANGE=$$ROS_AUTOMATIC_DISCOVERY_RANGE"
	@rc=0; "$(PY)" -m pytest $(TESTS) $(PYTEST_ARGS) || rc=$$?; \
	if [[ $$rc -eq 5 ]]; then echo "[make test] ERROR: pytest collected no tests" >&2; fi; \
	exit $$rc

# The demo's own DDS domain (43) unless ROS_DOMAIN_ID is given on the command line or in the
# environment; discovery stays on this machine. DEMO_ARGS are passed on (e.g.
# DEMO_ARGS="--robot double_pendulum", "--duration 20", "--urdf my_arm.urdf --tip-link tool0").
demo: DEMO_ROS_DOMAIN_ID ?= $(if $(filter file,$(origin ROS_DOMAIN_ID)),43,$(ROS_DOMAIN_ID))
demo: install
	@echo "[make demo] ROS_DOMAIN_ID=$(DEMO_ROS_DOMAIN_ID) ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST"
	@ROS_DOMAIN_ID=$(DEMO_ROS_DOMAIN_ID) ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST \
		"$(VENV)/bin/robot-dynamics-demo" $(DEMO_ARGS)

bench: install
	@bash scripts/bench.sh

lint: setup
	@"$(VENV)/bin/ruff" check $(LINT_PATHS)

params-doc: install
	@"$(PY)" -m robot_dynamics.tools.params_doc

clean:
	rm -rf "$(VENV)" build install log .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -not -path './.git/*' -exec rm -rf {} +
	rm -rf *.egg-info
