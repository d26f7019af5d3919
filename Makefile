# Day-to-day tasks; `bash scripts/test.sh` is what CI runs.
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install lint typecheck test fmt regen check-generated

install:
	bash scripts/install.sh

lint:
	$(BIN)/ruff check ascgen tests
	$(BIN)/ruff format --check ascgen

typecheck:
	$(BIN)/mypy

test:
	$(BIN)/pytest -q

fmt:
	$(BIN)/ruff format ascgen
	$(BIN)/ruff check --fix ascgen

regen:
	$(BIN)/ascgen generate pipelines/

check-generated:
	$(BIN)/ascgen generate --check pipelines/
