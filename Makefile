# Day-to-day tasks; `bash scripts/test.sh` is what CI runs.
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install lint typecheck test fmt fmt-check regen check-generated

install:
	bash scripts/install.sh

lint: fmt-check
	$(BIN)/ruff check .

typecheck:
	$(BIN)/mypy

test:
	$(BIN)/pytest -q

# Python (ruff) and hand-written C++ (the pinned clang-format, .clang-format): scripts/format.sh
fmt:
	VENV=$(VENV) bash scripts/format.sh
	$(BIN)/ruff check --fix .

fmt-check:
	VENV=$(VENV) bash scripts/format.sh --check

regen:
	$(BIN)/ascgen generate --shared-runtime pipelines/

check-generated:
	$(BIN)/ascgen generate --shared-runtime --check pipelines/
