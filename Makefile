# scoreledger: every target does its own set-up (uv, the virtual environment, system packages).
SHELL := /bin/bash
UV := $(shell command -v uv 2>/dev/null || echo .cache/uvtool/bin/uv)
PYTEST_ARGS ?=
# pytest-xdist: one worker per core (2 on the project's machines), each with its own Redis
# (server, cluster, or database of a shared REDIS_URL) and its own PostgreSQL databases; a
# file's tests run on one worker, so a module's servers start once. TEST_WORKERS=0: one process.
TEST_WORKERS ?= auto
XDIST := -n $(TEST_WORKERS) --dist loadfile
RUN := $(UV) run --frozen --no-sync
# A full install (.venv/.synced: dev, test and bench groups) also serves the demo.
DEMO_ENV := $(if $(wildcard .venv/.synced),.venv/.synced,.venv/.synced-demo)
FAST_TESTS := tests/domain tests/contracts tests/ports tests/usecases tests/architecture
# The suites on the session's Redis (`redis_url`). Not here: tests/cluster and
# tests/cli/test_cluster_commands.py run on a cluster in `make test` already; the rest of
# tests/web drives a browser.
CLUSTER_TESTS := tests/pipeline tests/ports tests/query tests/adversarial tests/thirdgame \
	tests/usecases/test_both_doors.py tests/usecases/test_pipeline_in_process.py \
	tests/simulator/test_sinks.py \
	tests/cli/test_export.py tests/cli/test_publish.py tests/cli/test_serve.py \
	tests/cli/test_serve_stop.py \
	tests/cli/test_startup.py::test_the_check_passes_on_a_live_redis tests/doors/test_faults_pool.py \
	tests/web/test_push.py tests/archive tests/names/test_forget_tournament.py tests/names/test_side_names_pressure.py

.PHONY: demo demo-cluster test test-fast test-cluster bench lint schemas docs system-deps clean

.cache/uvtool/bin/uv:
	python3 -m venv .cache/uvtool
	.cache/uvtool/bin/pip install --quiet --disable-pip-version-check uv

## the full development environment: production, dev (ruff, mypy, tests) and bench groups
.venv/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --quiet --inexact --group bench
	@touch $@

## what the demo needs and nothing more: the production dependencies
.venv/.synced-demo: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --quiet --inexact --no-default-groups
	@touch $@

## system-deps: redis-server, and for the tests chromium and wrk, from the OS packages, if missing
system-deps:
	@bash deploy/scripts/system-deps.sh

## demo: the main job, on a throwaway local redis-server unless REDIS_URL is set
demo: $(DEMO_ENV)
	@bash deploy/scripts/system-deps.sh redis
	$(RUN) scoreledger demo

## demo-cluster: the demo on a throwaway local 3-master Redis Cluster (redis-server itself)
demo-cluster: $(DEMO_ENV)
	@bash deploy/scripts/system-deps.sh redis
	$(RUN) scoreledger demo --cluster

## axe-core for the browser tests' accessibility checks (npm registry, pinned by the lock file)
tests/web/axe/node_modules/.installed: tests/web/axe/package.json tests/web/axe/package-lock.json
	npm ci --prefix tests/web/axe --silent --no-audit --no-fund
	@touch $@

## the AsyncAPI Initiative's parser, run on contracts/asyncapi.yaml by the contract tests
tests/contracts/asyncapi_parser/node_modules/.installed: tests/contracts/asyncapi_parser/package.json tests/contracts/asyncapi_parser/package-lock.json
	npm ci --prefix tests/contracts/asyncapi_parser --silent --no-audit --no-fund
	@touch $@

## the TypeScript client's tools (openapi-typescript, typescript), run by tests/clients
contracts/typescript/node_modules/.installed: contracts/typescript/package.json contracts/typescript/package-lock.json
	npm ci --prefix contracts/typescript --silent --no-audit --no-fund
	@touch $@

## test: the whole test suite against a real Redis and a real headless Chromium
test: .venv/.synced system-deps tests/web/axe/node_modules/.installed tests/contracts/asyncapi_parser/node_modules/.installed contracts/typescript/node_modules/.installed
	$(RUN) pytest $(XDIST) $(PYTEST_ARGS)

## test-fast: domain, contracts, ports and use cases on in-memory adapters (no Redis, no browser)
test-fast: .venv/.synced
	$(RUN) pytest $(FAST_TESTS) -m "not redis and not postgres and not browser and not node" $(PYTEST_ARGS)

## test-cluster: the Redis suites again on a local Redis Cluster (3 primaries + 3 replicas,
## started once for the session from redis-server, flushed between tests); one process: on two
## workers a forget-everywhere test once saw a cached standings line (docs/development.md)
test-cluster: .venv/.synced
	@bash deploy/scripts/system-deps.sh redis
	SCORELEDGER_TEST_REDIS=cluster $(RUN) pytest $(CLUSTER_TESTS) -m "not browser" $(PYTEST_ARGS)

## bench: the benchmark harness; writes docs/benchmarks.md
bench: .venv/.synced
	@bash deploy/scripts/system-deps.sh bench
	$(RUN) python -m services.bench

## schemas: regenerate the committed JSON Schema / AsyncAPI / OpenAPI under contracts/
schemas: .venv/.synced
	$(RUN) python -m services.contracts_gen

## the documentation site's tools (MkDocs, Material): the docs group beside the full install
.venv/.synced-docs: .venv/.synced
	$(UV) sync --frozen --quiet --inexact --group bench --group docs
	@touch $@

## docs: the documentation site, built strictly (a broken link or anchor fails) into site/
docs: .venv/.synced-docs
	NO_MKDOCS_2_WARNING=1 $(RUN) mkdocs build --strict

## lint: ruff check, ruff format --check, mypy strict (contracts, domain, services)
lint: .venv/.synced
	$(RUN) ruff check .
	$(RUN) ruff format --check .
	$(RUN) mypy

clean:
	rm -rf .venv .cache .pytest_cache .hypothesis
