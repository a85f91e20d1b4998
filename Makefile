# scoreledger: every target does its own set-up (uv, the virtual environment, system packages).
SHELL := /bin/bash
UV := $(shell command -v uv 2>/dev/null || echo .cache/uvtool/bin/uv)
PYTEST_ARGS ?=

.PHONY: demo test bench lint schemas system-deps clean

.cache/uvtool/bin/uv:
	python3 -m venv .cache/uvtool
	.cache/uvtool/bin/pip install --quiet --disable-pip-version-check uv

.venv/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --quiet
	@touch $@

## system-deps: redis-server (and chromium for the browser tests) from the OS packages, if missing
system-deps:
	@bash deploy/scripts/system-deps.sh

## demo: the main job, on a throwaway local redis-server unless REDIS_URL is set
demo: .venv/.synced
	@bash deploy/scripts/system-deps.sh redis
	$(UV) run --frozen scoreledger demo

## test: the whole test suite against a real Redis and a real headless Chromium
test: .venv/.synced system-deps
	$(UV) run --frozen pytest $(PYTEST_ARGS)

## bench: the benchmark harness; writes docs/benchmarks.md
bench: .venv/.synced
	@bash deploy/scripts/system-deps.sh bench
	$(UV) run --frozen python -m services.bench

## schemas: regenerate the committed JSON Schema / AsyncAPI / OpenAPI under contracts/
schemas: .venv/.synced
	$(UV) run --frozen python -m services.contracts_gen

lint: .venv/.synced
	$(UV) run --frozen ruff check .

clean:
	rm -rf .venv .cache .pytest_cache .hypothesis
