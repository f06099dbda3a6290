# Developer and CI entry points. Each recipe runs in one bash shell (.ONESHELL; silent, `make -n`
# shows it), so the environment set by `source .ci/bootstrap` (VENV, PATH) holds for the whole
# recipe. Works from any fresh clone: the virtualenv and Neo4j live under ~/.cache/engrava-graph.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.ONESHELL:
.DEFAULT_GOAL := test

ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
BOOTSTRAP := cd "$(ROOT)" && source .ci/bootstrap
PYTEST_ARGS ?=
# When set, the test target writes pytest's exit status into this file (used by .ci/run).
PYTEST_STATUS_FILE ?=
LTS_VERSION ?= 5.26.30
# check: 1 = any finding fails (CI, .ci/run); 0 = findings are printed but do not fail.
CHECK_STRICT ?= 1

.PHONY: test test-lts test-unit check docs-api wheel-smoke demo neo4j-start neo4j-stop

test:
	@$(BOOTSTRAP)
	engrava-graph neo4j start
	connection="$$(engrava-graph neo4j env)"
	eval "$$connection"
	status=0
	python -m pytest -q $(PYTEST_ARGS) || status=$$?
	if [[ -n "$(PYTEST_STATUS_FILE)" ]]; then echo "$$status" > "$(PYTEST_STATUS_FILE)"; fi
	exit "$$status"

# The integration tests again on the Neo4j 5.26 LTS line (its own instance, on free ports), so
# the statements chosen per server line are exercised on both.
test-lts:
	@$(BOOTSTRAP)
	export ENGRAVA_NEO4J_VERSION=$(LTS_VERSION) ENGRAVA_NEO4J_INSTANCE=lts
	engrava-graph neo4j start
	connection="$$(engrava-graph neo4j env)"
	eval "$$connection"
	status=0
	python -m pytest -q tests/integration $(PYTEST_ARGS) || status=$$?
	if [[ -n "$(PYTEST_STATUS_FILE)" ]]; then echo "$$status" > "$(PYTEST_STATUS_FILE)"; fi
	exit "$$status"

# Pure-logic tests only (tests/unit: no Neo4j, no model download), in seconds.
test-unit:
	@$(BOOTSTRAP)
	python -m pytest -q -p no:cacheprovider tests/unit $(PYTEST_ARGS)

# Lint, format and types: ruff (rules and settings in pyproject.toml) and mypy on the library.
check:
	@$(BOOTSTRAP)
	failed=()
	ruff check . || failed+=("ruff check")
	ruff format --check . || failed+=("ruff format")
	mypy || failed+=(mypy)
	if (( $${#failed[@]} == 0 )); then echo "check: ruff and mypy pass"; exit 0; fi
	echo "check: problems found by: $${failed[*]}"
	if [[ "$(CHECK_STRICT)" == 1 ]]; then exit 1; fi
	echo "check: not failing (CHECK_STRICT=0)"

# The Python API reference, generated from the docstrings (pdoc), into site/api/.
docs-api:
	@$(BOOTSTRAP)
	modules="$$(python -c 'import engrava_graph.api_reference as r; print(*r.modules())')"
	python -m pdoc --docformat google -o site/api $$modules
	echo "API reference: site/api/index.html"

# Build the wheel, install it in a clean venv and store/retrieve once from it.
wheel-smoke:
	@$(BOOTSTRAP)
	engrava-graph neo4j start
	connection="$$(engrava-graph neo4j env)"
	eval "$$connection"
	.ci/wheel-smoke

demo:
	@$(BOOTSTRAP)
	engrava-graph neo4j start
	connection="$$(engrava-graph neo4j env)"
	eval "$$connection"
	engrava-graph demo

neo4j-start:
	@$(BOOTSTRAP)
	engrava-graph neo4j start

neo4j-stop:
	@$(BOOTSTRAP)
	engrava-graph neo4j stop
